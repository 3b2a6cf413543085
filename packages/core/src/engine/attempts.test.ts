import { describe, expect, it } from 'vitest';
import { jsonSize } from '../adapter/conflicts.ts';
import type { Envelope } from '../adapter/envelope.ts';
import type { ActorRecord } from '../adapter/storedRecords.ts';
import { attemptOf, attemptsMade, countedAttempt, outOfAttempts } from './attempts.ts';
import type { Engine } from './createEngine.ts';
import type { Inbound } from './Inbound.ts';
import { pageStateGrowth } from './pageStateGrowth.ts';

const record: ActorRecord = {
  id: 'job/j',
  ver: 3,
  state: {},
  inboxOffset: '4',
  marks: {},
  sentSeq: 0,
};
const inbound = (queueSeq: string, receiveCount: number): Inbound => ({
  envelope: { id: 'm1' } as Envelope,
  queueSeq,
  receiveCount,
});
const failing = { ...record, failing: { id: 'm1', at: '5', attempts: 2 } };
const engine = (maxItemBytes = 400_000) =>
  ({ maxAttempts: 3, store: { limits: { maxItemBytes } } }) as unknown as Engine;

describe('the attempts of a message', () => {
  it('count the failures the record keeps of this message at this inbox position', () => {
    expect(attemptOf(record, inbound('5', 7))).toBe(1);
    expect(attemptOf(failing, inbound('5', 7))).toBe(3);
    // The same message at another position (a queue replaced, a redrive) counts anew.
    expect(attemptOf(failing, inbound('9', 7))).toBe(1);
  });

  it("go by the queue's receives only on a record with no room for a count", () => {
    const counted = countedAttempt(engine(), record, inbound('5', 1))!;
    const full = engine(jsonSize(counted) - 1);
    expect(attemptsMade(full, record, inbound('5', 7))).toBe(7);
    expect(attemptsMade(engine(), record, inbound('5', 7))).toBe(1);
    // A count kept before the record filled up is still the count.
    expect(attemptsMade(engine(jsonSize(failing) - 1), failing, inbound('5', 7))).toBe(3);
  });

  it("end at maxAttempts, or at the queue's last receive when it is known", () => {
    expect(outOfAttempts(engine(), failing, inbound('5', 3), undefined)).toBe(true);
    expect(outOfAttempts(engine(), record, inbound('5', 9), undefined)).toBe(false);
    expect(outOfAttempts(engine(), record, inbound('5', 9), 10)).toBe(false);
    expect(outOfAttempts(engine(), record, inbound('5', 10), 10)).toBe(true);
  });

  it('are counted in the record while it fits its item, with room for its outcome page to grow', () => {
    const paged: ActorRecord = { ...record, outcomePage: { page: 0, bytes: 0 } };
    const counted = countedAttempt(engine(), paged, inbound('5', 1))!;
    expect(counted.failing).toEqual({ id: 'm1', at: '5', attempts: 1 });
    const size = jsonSize(counted) + pageStateGrowth(counted);
    expect(pageStateGrowth(counted)).toBeGreaterThan(0);
    expect(countedAttempt(engine(size), paged, inbound('5', 1))).toEqual(counted);
    expect(countedAttempt(engine(size - 1), paged, inbound('5', 1))).toBeUndefined();
  });
});
