import type { ActorRecord, DeadLetter, OverflowMark } from '@baton/core/adapter';
import { describe, expect, it } from 'vitest';
import {
  deadLetterToItem,
  itemToDeadLetter,
  itemToOverflow,
  itemToRecord,
  overflowToItem,
  recordToItem,
} from './itemCodec.ts';
import { Attr, RECORD_ATTRIBUTES } from './tableLayout.ts';

/** A record with every field set, holding one send. */
const full: ActorRecord = {
  id: 'account/a',
  ver: 3,
  life: 'l1',
  format: 2,
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
  outcomePage: { page: 2, bytes: 300, sentAt: 5, closedSentAt: 4, itemsBefore: 3 },
  failing: {
    id: 'ingress:k',
    at: '8',
    attempts: 2,
    handler: 'deposit',
    error: { code: 'RETRYABLE', message: 'the "bank" said:\nno — ✓' },
  },
};

describe('the actor record item', () => {
  it('writes only attributes its size overhead counts, and reads each back', () => {
    // Holding sends, a halted record goes without its TTL (below): every other attribute.
    const item = recordToItem(full, 4);
    const attributes = RECORD_ATTRIBUTES.filter((name) => name !== Attr.ttl);
    expect(Object.keys(item).sort()).toEqual(attributes.sort());
    expect(itemToRecord(item)).toEqual(full);
  });

  it("reads a failing message's count written without its handler and error (an older Baton's) as it was", () => {
    const counted: ActorRecord = { ...full, failing: { id: 'ingress:k', at: '8', attempts: 2 } };
    expect(itemToRecord(recordToItem(counted, 4))).toEqual(counted);
  });

  it('gives a halted record its TTL only once it holds no sends, which would go with it', () => {
    const { outbox: _, paused: _paused, parked: _parked, ...drained } = full;
    expect(recordToItem(drained, 4)[Attr.ttl]).toEqual({ N: '2' });
    expect(itemToRecord(recordToItem(drained, 4))).toEqual(drained);
    expect(recordToItem({ ...drained, outbox: [] }, 4)[Attr.ttl]).toEqual({ N: '2' });
  });

  it('gives a halted record no TTL while it is paused or holds parked messages', () => {
    const { outbox: _, paused, parked, ...drained } = full;
    for (const held of [{ paused }, { parked }]) {
      const item = recordToItem({ ...drained, ...held }, 4);
      expect(item[Attr.ttl]).toBeUndefined();
      expect(itemToRecord(item).expiresAt).toBe(full.expiresAt);
    }
  });
});

describe('the overflow mark item', () => {
  it('reads each kind back as written: a sender mark, a channel, a page of state', () => {
    const marks: OverflowMark[] = [
      { kind: 'sender', peer: 'a/1', mark: { seq: 3, at: 10 }, expiresAt: 99 },
      { kind: 'channel', peer: 'a/1', mark: { seq: 4, at: 11 }, expiresAt: 99 },
      { kind: 'page', peer: 'wf:r1:0', mark: [{ seq: 0, kind: 'step' }], expiresAt: 99 },
    ];
    for (const mark of marks) expect(itemToOverflow(overflowToItem('x/1', mark))).toEqual(mark);
  });
});

describe('the dead letter item', () => {
  const letter: DeadLetter = {
    actorId: 'log/a',
    messageId: 'order/1:l1.3',
    envelope: {
      id: 'order/1:l1.3',
      from: 'order/1',
      seq: 3,
      to: 'log/a',
      name: 'w',
      payload: 1,
      sentAt: 0,
    },
    redrivable: true,
    error: { code: 'DEAD_LETTERED', message: 'kept', details: {} },
    attempts: 1,
    at: 5_000,
  };

  it('puts a dead letter in the index that lists them, with no expiry', () => {
    const item = deadLetterToItem(letter, 4);
    expect(item[Attr.obAt]).toEqual({ N: '5000' });
    expect(item[Attr.obPk]).toBeDefined();
    expect(item[Attr.ttl]).toBeUndefined();
    expect(itemToDeadLetter(item)).toEqual(letter);
  });

  it("keeps a redrive's proof out of that index, deleted by TTL once it expires", () => {
    const proof = { ...letter, applied: { at: 6_000, expiresAt: 9_000_500 } };
    const item = deadLetterToItem(proof, 4);
    expect(item[Attr.obPk]).toBeUndefined();
    expect(item[Attr.obAt]).toBeUndefined();
    expect(item[Attr.ttl]).toEqual({ N: '9001' });
    expect(itemToDeadLetter(item)).toEqual(proof);
  });
});
