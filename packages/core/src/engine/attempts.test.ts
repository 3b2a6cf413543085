import { describe, expect, it } from 'vitest';
import { jsonSize } from '../adapter/conflicts.ts';
import type { Envelope } from '../adapter/envelope.ts';
import type { ActorRecord } from '../adapter/storedRecords.ts';
import { BatonError, ErrorCode, RetryableError } from '../errors.ts';
import { attemptOf, attemptsMade, clipped, countedAttempt, outOfAttempts } from './attempts.ts';
import { apartMarkGrowth } from './commitPlacement.ts';
import type { Engine } from './createEngine.ts';
import type { Inbound } from './Inbound.ts';
import { pageStateGrowth } from './pageStateGrowth.ts';
import { deployRetryMs, waitsForDeploy, waitsForNewerCode } from './turnErrors.ts';

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
/** The engine's clock: the time a first failed attempt is kept as `since`. */
const T0 = 1_700_000_000_000;
const engine = (maxItemBytes = 400_000) =>
  ({
    maxAttempts: 3,
    store: { limits: { maxItemBytes } },
    clock: { now: () => T0 },
  }) as unknown as Engine;
/** A handler's failure, and failures of a deploy: a name unknown here, a newer state version. */
const fault = new RetryableError('the database is down');
const unknownName = waitsForNewerCode(
  { id: 'm1', to: 'job/j' } as Envelope,
  new BatonError(ErrorCode.UNKNOWN_MESSAGE, 'actor type "job" has no handler "run"'),
);
const newerState = new RetryableError('written by a newer version', {
  details: { actorId: 'job/j', stateVersion: 3, version: 2 },
});
const failedMigration = new RetryableError('migrate step threw', {
  details: { actorId: 'job/j', stateVersion: 1, migrateStep: 1 },
});
const at = (attempts: number) => ({ ...record, failing: { id: 'm1', at: '5', attempts } });

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
    expect(outOfAttempts(engine(), failing, inbound('5', 3), undefined, fault)).toBe(true);
    expect(outOfAttempts(engine(), failing, inbound('5', 3), 10, fault)).toBe(true);
    expect(outOfAttempts(engine(), record, inbound('5', 9), undefined, fault)).toBe(false);
    expect(outOfAttempts(engine(), record, inbound('5', 9), 10, fault)).toBe(false);
    expect(outOfAttempts(engine(), record, inbound('5', 10), 10, fault)).toBe(true);
  });

  it("of a deploy's failure end at the queue's last receive but one, when it is known", () => {
    for (const deploy of [unknownName, newerState]) {
      expect(waitsForDeploy(deploy)).toBe(true);
      // Past maxAttempts (3), up to maxReceives - 1 (9): the last receive is the backstop.
      expect(outOfAttempts(engine(), at(2), inbound('5', 3), 10, deploy)).toBe(false);
      expect(outOfAttempts(engine(), at(7), inbound('5', 8), 10, deploy)).toBe(false);
      expect(outOfAttempts(engine(), at(8), inbound('5', 9), 10, deploy)).toBe(true);
      // Received as often as the queue allows (it waited behind others): ended at once.
      expect(outOfAttempts(engine(), record, inbound('5', 10), 10, deploy)).toBe(true);
      // Never fewer than maxAttempts; and maxAttempts when the queue does not say.
      expect(outOfAttempts(engine(), at(1), inbound('5', 2), 4, deploy)).toBe(false);
      expect(outOfAttempts(engine(), at(2), inbound('5', 3), 4, deploy)).toBe(true);
      expect(outOfAttempts(engine(), at(2), inbound('5', 3), undefined, deploy)).toBe(true);
    }
    // A migration that threw, or a handler's failure, is no deploy's.
    expect(waitsForDeploy(failedMigration)).toBe(false);
    expect(waitsForDeploy(fault)).toBe(false);
    // Only a retried failure waits: the same cause refused for good (at a door) does not.
    const refused = new BatonError(ErrorCode.REJECTED, 'refused', { details: unknownName.details });
    expect(waitsForDeploy(refused)).toBe(false);
    // Only a state version newer than the code's, given as numbers.
    for (const details of [
      { stateVersion: 2, version: 2 },
      { stateVersion: '3', version: 2 },
      { stateVersion: 3, version: '2' },
    ]) {
      expect(waitsForDeploy(new RetryableError('state', { details }))).toBe(false);
    }
    expect(outOfAttempts(engine(), at(2), inbound('5', 3), 10, failedMigration)).toBe(true);
  });

  it("of a deploy's failure are 5 s apart, then twice as long each time, up to a minute", () => {
    expect([1, 2, 3, 4, 5, 6, 9].map(deployRetryMs)).toEqual([
      5_000, 10_000, 20_000, 40_000, 60_000, 60_000, 60_000,
    ]);
  });

  it('are counted in the record while it fits its item, with room for what its commit adds', () => {
    const paged: ActorRecord = { ...record, outcomePage: { page: 0, bytes: 0 } };
    const counted = countedAttempt(engine(), paged, inbound('5', 1))!;
    expect(counted.failing).toEqual({ id: 'm1', at: '5', attempts: 1, since: T0 });
    // Its outcome page state, the mark of sends apart (of messages before it in the commit).
    const size = jsonSize(counted) + pageStateGrowth(counted) + apartMarkGrowth(counted);
    expect(pageStateGrowth(counted)).toBeGreaterThan(0);
    expect(countedAttempt(engine(size), paged, inbound('5', 1))).toEqual(counted);
    expect(countedAttempt(engine(size - 1), paged, inbound('5', 1))).toBeUndefined();
  });

  it("keep the time of the message's first failed attempt, anew for another message, none on a record without it", () => {
    const since = T0 - 3_600_000;
    const kept = { ...record, failing: { id: 'm1', at: '5', attempts: 2, since } };
    expect(countedAttempt(engine(), kept, inbound('5', 3))!.failing).toEqual({
      id: 'm1',
      at: '5',
      attempts: 3,
      since,
    });
    // Another message (or the same id at another inbox position) fails: its own first attempt.
    expect(countedAttempt(engine(), kept, inbound('6', 1))!.failing?.since).toBe(T0);
    // A record from before `since` was kept: its message's age stays unknown, not made up.
    expect(countedAttempt(engine(), failing, inbound('5', 3))!.failing?.since).toBeUndefined();
  });

  it('keep room for the version the count commits at gaining a digit (9 to 10)', () => {
    const nine: ActorRecord = { ...record, ver: 9 };
    const counted = countedAttempt(engine(), nine, inbound('5', 1))!;
    const size = jsonSize(counted) + apartMarkGrowth(counted) + 1;
    expect(countedAttempt(engine(size), nine, inbound('5', 1))).toEqual(counted);
    expect(countedAttempt(engine(size - 1), nine, inbound('5', 1))).toBeUndefined();
  });

  it('keep the handler and the error that failed the message, its text clipped', () => {
    const named: Inbound = { ...inbound('5', 1), envelope: { id: 'm1', name: 'run' } as Envelope };
    const counted = countedAttempt(engine(), record, named, fault)!;
    expect(counted.failing).toEqual({
      id: 'm1',
      at: '5',
      attempts: 1,
      since: T0,
      handler: 'run',
      error: { code: ErrorCode.RETRYABLE, message: 'the database is down' },
    });
    // A huge error keeps 300 characters of its text, the last an ellipsis.
    const huge = new RetryableError(`boom ${'x'.repeat(100_000)}`);
    const kept = countedAttempt(engine(), at(1), named, huge)!.failing!;
    expect(kept.attempts).toBe(2);
    expect(kept.error?.message).toBe(`boom ${'x'.repeat(294)}…`);
    expect(kept.error?.message).toHaveLength(300);
  });

  it('fall back to the count alone when the error would not fit the item, not to no count', () => {
    const named: Inbound = { ...inbound('5', 1), envelope: { id: 'm1', name: 'run' } as Envelope };
    const told = countedAttempt(engine(), record, named, fault)!;
    const bare = countedAttempt(engine(), record, named)!;
    expect(bare.failing).toEqual({ id: 'm1', at: '5', attempts: 1, since: T0 });
    // Room for the count, not for the handler and the error: the count.
    const tight = engine(jsonSize(told) - 1);
    expect(countedAttempt(tight, record, named, fault)).toEqual(bare);
    expect(attemptsMade(tight, record, inbound('5', 7))).toBe(1);
    // Room for neither: no count (the queue's receives count instead).
    expect(countedAttempt(engine(jsonSize(bare) - 1), record, named, fault)).toBeUndefined();
  });
});

describe('an error kept with a failing message', () => {
  it('is at most 300 characters, an ellipsis where it was cut, and never splits a surrogate pair', () => {
    expect(clipped('short')).toBe('short');
    expect(clipped('a'.repeat(300))).toBe('a'.repeat(300));
    expect(clipped('a'.repeat(301))).toBe(`${'a'.repeat(299)}…`);
    // The pair at 298–299 would be cut in two: it goes whole.
    expect(clipped(`${'a'.repeat(298)}😀${'b'.repeat(10)}`)).toBe(`${'a'.repeat(298)}…`);
    expect(clipped(`${'a'.repeat(297)}😀${'b'.repeat(10)}`)).toBe(`${'a'.repeat(297)}😀…`);
  });
});
