/**
 * `client.outcome` bounds what one read makes the store read: from no earlier than twice the
 * outcome retention ago (whatever `sentAt` says, or none), through OUTCOME_READ_MAX_PAGES pages;
 * and for a caller, only for an id a door gave it.
 */
import { describe, expect, it } from 'vitest';
import { ingressMessageId } from '../adapter/envelope.ts';
import type { OutcomeReadOptions, Queue, Store } from '../adapter/ports.ts';
import type { IdempotencyRecord } from '../adapter/storedRecords.ts';
import { Client } from './Client.ts';
import { OUTCOME_READ_MAX_PAGES } from './IdempotencyKeys.ts';

const DAY = 24 * 60 * 60 * 1000;
const NOW = 100 * DAY;
const HOUR = 60 * 60 * 1000;

/**
 * A client over a store that records the reads of outcomes, and has none, as trusted code
 * (`client`) and as an anonymous caller (`caller`); the store reads no claims.
 */
function reading(idempotencyRetentionMs?: number) {
  const reads: { sentAt?: number; options?: OutcomeReadOptions }[] = [];
  const store = {
    claimKey: async () => undefined,
    readIdempotency: async (_key: string, sentAt?: number, options?: OutcomeReadOptions) => {
      reads.push({ sentAt, options });
      return undefined as IdempotencyRecord | undefined;
    },
  } as unknown as Store;
  const client = new Client({
    actors: [],
    store,
    queue: {} as Queue,
    clock: { now: () => NOW },
    ...(idempotencyRetentionMs === undefined ? {} : { idempotencyRetentionMs }),
  });
  return { client: client.asSystem(), caller: client, reads, store };
}

const id = ingressMessageId('account/alice', 'dep-1');

describe('client.outcome', () => {
  it('reads no earlier than twice the retention ago (less a clock margin), through 64 pages at most', async () => {
    const { client, reads } = reading();
    const oldest = NOW - 2 * 14 * DAY - HOUR;
    await client.outcome(id);
    await client.outcome(id, { sentAt: 0 });
    await client.outcome(id, { sentAt: NOW - HOUR });
    expect(OUTCOME_READ_MAX_PAGES).toBe(64);
    expect(reads).toEqual([
      { sentAt: oldest, options: { maxPages: 64 } },
      { sentAt: oldest, options: { maxPages: 64 } },
      { sentAt: NOW - HOUR, options: { maxPages: 64 } },
    ]);
  });

  it('reads nothing for a caller whose id is neither a receipt nor a claimed key', async () => {
    const { caller, reads } = reading();
    expect(await caller.outcome(id)).toBeUndefined();
    expect(await caller.outcome(id, { sentAt: NOW - HOUR })).toBeUndefined();
    expect(reads).toEqual([]);
  });

  it('reads nothing for trusted code that says the message was keyed, when the store holds no claim of it', async () => {
    const { client, reads, store } = reading();
    store.readClaim = async () => undefined;
    expect(await client.outcome(id, { keyed: true })).toBeUndefined();
    expect(reads).toEqual([]);
    // Not said keyed: trusted code reads on (an operator's tools), as far as the bound.
    await client.outcome(id);
    expect(reads).toHaveLength(1);
  });

  it("takes the engine's retention the client is given", async () => {
    const { client, reads } = reading(DAY);
    await client.outcome(id, { sentAt: 0 });
    expect(reads).toEqual([{ sentAt: NOW - 2 * DAY - HOUR, options: { maxPages: 64 } }]);
  });
});
