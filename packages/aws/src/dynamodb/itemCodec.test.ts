import type { ActorRecord } from '@baton/core/adapter';
import { describe, expect, it } from 'vitest';
import { itemToRecord, recordToItem } from './itemCodec.ts';
import { RECORD_ATTRIBUTES } from './tableLayout.ts';

/** A record with every field set, holding one send. */
const full: ActorRecord = {
  id: 'account/a',
  ver: 3,
  life: 'l1',
  format: 1,
  state: { balance: 5 },
  stateVersion: 2,
  inboxOffset: '7',
  inboxQueue: 'inbox',
  marks: { 'account/b': { seq: 2, at: 1 } },
  sentSeq: 4,
  channels: { 'account/b': { seq: 4, at: 1 } },
  overflowedAt: 1,
  timerEpoch: 1,
  expiresAt: 2_000,
  outbox: [{ actorId: 'account/a', seq: 4, envelopes: [], createdAt: 1 }],
  outboxApart: true,
  paused: { at: 1, by: 'ops' },
  parked: 9,
};

describe('the actor record item', () => {
  it('writes exactly the attributes its size overhead counts, and reads each back', () => {
    const item = recordToItem(full, 4);
    expect(Object.keys(item).sort()).toEqual([...RECORD_ATTRIBUTES].sort());
    expect(itemToRecord(item)).toEqual(full);
  });
});
