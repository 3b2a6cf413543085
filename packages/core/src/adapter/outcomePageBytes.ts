/**
 * What an outcome page (see the engine's `outcomePages.ts`) takes as one store item, as the
 * engine and `checkCommit` measure it on every store: a store lays a page out as it likes, but
 * none may take more than this. A page keeps each outcome under its key, so an entry costs its
 * outcome's JSON, its key a second time, and a fixed {@link PAGE_ENTRY_BYTES}; the page itself
 * adds {@link PAGE_ITEM_BYTES}. On DynamoDB (`o:<key>` → `{ j, e }`, with `pk`, `sk`, `pm`,
 * `ttl`) the adapter's tests check that these bound the item it writes.
 */
import { jsonSize } from '../shared/jsonSize.ts';
import { utf8ByteLength } from '../shared/utf8.ts';
import type { IdempotencyRecord } from './storedRecords.ts';

/**
 * Bytes an entry of a page takes besides its outcome's JSON and its key: on DynamoDB the `o:`
 * of its attribute's name, the map around the outcome (3 bytes, 1 a member), the members'
 * names `j` and `e`, and the expiry `e` as a number (21 bytes at most), 30 in all.
 */
export const PAGE_ENTRY_BYTES = 32;

/**
 * Bytes a page item takes besides its entries: on DynamoDB its key (`pk` less the actor id,
 * which each entry's JSON holds and the item does not keep in the entry, and `sk`), `pm` and
 * `ttl`, 72 in all.
 */
export const PAGE_ITEM_BYTES = 96;

/**
 * The bytes `outcome` takes as an entry of a page: its JSON (`json`, when measured already),
 * its key again and {@link PAGE_ENTRY_BYTES}.
 *
 * @example
 * pageEntryBytes(outcome); // jsonSize(outcome) + the key's UTF-8 bytes + 32
 */
export function pageEntryBytes(outcome: IdempotencyRecord, json = jsonSize(outcome)): number {
  return json + utf8ByteLength(outcome.key) + PAGE_ENTRY_BYTES;
}

/** The summed {@link pageEntryBytes} of `outcomes`. */
export function pageEntriesBytes(outcomes: readonly IdempotencyRecord[]): number {
  let bytes = 0;
  for (const outcome of outcomes) bytes += pageEntryBytes(outcome);
  return bytes;
}

/**
 * The bytes of a page item whose entries take `entries` bytes (their summed
 * {@link pageEntryBytes}): what must fit the store's `maxItemBytes`.
 */
export function pageItemBytes(entries: number): number {
  return PAGE_ITEM_BYTES + entries;
}
