import { describe, expect, it } from 'vitest';
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
