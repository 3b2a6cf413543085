import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import {
  PAGE_ENTRY_BYTES,
  PAGE_ITEM_BYTES,
  type PagedOutcome,
  pageEntriesBytes,
  pageItemBytes,
} from '@baton/core/adapter';
import { describe, expect, it } from 'vitest';
import { outcomePagesPk, pageSk, pageWriteItem } from './outcomePages.ts';
import {
  Attr,
  actorPk,
  DYNAMO_STORE_LIMITS,
  DYNAMODB_ITEM_BYTES,
  deadLetterShardKey,
  deadLetterSk,
  IDEMPOTENCY_SK,
  idempotencyPk,
  MAX_KEY_ID_BYTES,
  MAX_OUTBOX_SHARDS,
  outboxShardKey,
  outboxSk,
  overflowSk,
  overhead,
  RECORD_OVERHEAD,
  timerShardKey,
  timerSk,
} from './tableLayout.ts';

/** The overhead of every item but the actor record (see `overhead`). */
const others = {
  outbox: overhead(
    [Attr.pk, Attr.sk, Attr.envelopes, Attr.createdAt, Attr.obPk, Attr.obAt],
    [actorPk(''), outboxSk(Number.MAX_SAFE_INTEGER, ''), outboxShardKey(MAX_OUTBOX_SHARDS - 1)],
    2,
  ),
  idempotency: overhead(
    [
      Attr.pk,
      Attr.sk,
      Attr.key,
      Attr.actorId,
      Attr.outcome,
      Attr.fingerprint,
      Attr.expiresAt,
      Attr.ttl,
    ],
    // A long key is stored whole besides its digest in the partition key.
    [idempotencyPk('x'.repeat(MAX_KEY_ID_BYTES + 1)), IDEMPOTENCY_SK],
    2,
  ),
  overflow: overhead(
    [Attr.pk, Attr.sk, Attr.peer, Attr.mark, Attr.expiresAt, Attr.ttl],
    [actorPk(''), overflowSk('sender', '')],
    2,
  ),
  deadLetter: overhead(
    [Attr.pk, Attr.sk, Attr.letter, Attr.obPk, Attr.obAt, Attr.ttl],
    [actorPk(''), deadLetterSk(''), deadLetterShardKey(MAX_OUTBOX_SHARDS - 1)],
    1,
  ),
  timer: overhead(
    [Attr.pk, Attr.sk, Attr.timer, Attr.obPk, Attr.obAt],
    [actorPk(''), timerSk(''), timerShardKey(MAX_OUTBOX_SHARDS - 1)],
    1,
  ),
};

describe('the item limit DynamoStore announces', () => {
  it.each(Object.entries(others))(
    "leaves room for the %s item's overhead: the actor record's is the largest",
    (_, bytes) => {
      expect(bytes).toBeLessThanOrEqual(RECORD_OVERHEAD);
      expect(DYNAMO_STORE_LIMITS.maxItemBytes + bytes).toBeLessThanOrEqual(DYNAMODB_ITEM_BYTES);
    },
  );

  it("is 400 KB less the actor record's overhead", () => {
    expect(DYNAMO_STORE_LIMITS.maxItemBytes).toBe(DYNAMODB_ITEM_BYTES - RECORD_OVERHEAD);
  });
});

/** DynamoDB's size of a value: UTF-8 strings, numbers by their digits, maps 3 bytes and 1 a member. */
function valueBytes(value: AttributeValue): number {
  if (value.S !== undefined) return Buffer.byteLength(value.S, 'utf8');
  if (value.N !== undefined) {
    const digits = value.N.replace(/[-.]/g, '').replace(/^0+/, '').replace(/0+$/, '');
    return Math.ceil(digits.length / 2) + 1;
  }
  if (value.M !== undefined) return 3 + itemBytes(value.M) + Object.keys(value.M).length;
  throw new Error(`no size for ${JSON.stringify(value)}`);
}

/** DynamoDB's size of an item: its attributes' names and values. */
function itemBytes(item: Record<string, AttributeValue>): number {
  let bytes = 0;
  for (const [name, value] of Object.entries(item)) {
    bytes += Buffer.byteLength(name, 'utf8') + valueBytes(value);
  }
  return bytes;
}

describe("an outcome page item on DynamoDB, against the engine's measure of a page", () => {
  const page = (actorId: string, keys: readonly string[]) => {
    const records = keys.map(
      (key, i): PagedOutcome => ({
        key,
        actorId,
        outcome: { ok: true, value: 'x'.repeat(i * 37) },
        expiresAt: 1_796_276_412_322 + i,
        fingerprint: '64e4c22144df6562c828e32a1a3f67cd',
        sentAt: 1_796_190_012_322 + i,
      }),
    );
    const write = { page: 123_456, sentAt: 1_796_190_012_399, records, begins: true };
    const { Put } = pageWriteItem('t', actorId, write, 0, true);
    return {
      stored: itemBytes(Put?.Item ?? {}),
      measured: pageItemBytes(pageEntriesBytes(records)),
    };
  };

  it.each([
    ['short keys', 'a/b', ['k1', 'k2', 'k3']],
    // A client's idempotency key of 200 characters in an ingress id: each key stored twice.
    ['long keys', 'echo/p', Array.from({ length: 12 }, (_, i) => `ingress:${i}${'k'.repeat(240)}`)],
    // Past MAX_KEY_ID_BYTES, an attribute name holds the key's digest.
    [
      'keys hashed',
      'echo/p',
      ['k'.repeat(MAX_KEY_ID_BYTES + 1), `é${'k'.repeat(MAX_KEY_ID_BYTES)}`],
    ],
    ['non-ASCII keys', 'é/é', ['é'.repeat(300), '😀'.repeat(100)]],
    ['a long actor id', `a/${'x'.repeat(1024)}`, ['k']],
  ] as const)('takes no more than the engine measures, with %s', (_, actorId, keys) => {
    const { stored, measured } = page(actorId, keys);
    expect(stored).toBeLessThanOrEqual(measured);
  });

  it("has an entry's and a page's own overhead within the engine's constants", () => {
    // `o:` and the map `{ j, e }` around an outcome, `e` at its widest.
    const entry = overhead(['o:', 'j', 'e'], [], 1) + 3 + 2;
    expect(entry).toBe(30);
    expect(entry).toBeLessThanOrEqual(PAGE_ENTRY_BYTES);
    // Its key (the actor id in `pk` is each entry's JSON's, which the entry leaves out), `pm`, `ttl`.
    const item = overhead([Attr.pk, Attr.sk, 'pm', Attr.ttl], [outcomePagesPk(''), pageSk(0)], 2);
    expect(item).toBe(72);
    expect(item).toBeLessThanOrEqual(PAGE_ITEM_BYTES);
  });
});
