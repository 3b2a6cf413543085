import { describe, expect, it } from 'vitest';
import type { DeadLetter } from '../adapter/storedRecords.ts';
import { ErrorCode } from '../errors.ts';
import { jsonSize } from '../shared/jsonSize.ts';
import type { TurnEngine } from './createEngine.ts';
import { appliedProof } from './keptLetters.ts';

const DAY = 24 * 60 * 60 * 1000;

/** A letter kept as too old to tell, that just fits an item of `maxItemBytes`. */
function letterFitting(maxItemBytes: number): DeadLetter {
  const letter: DeadLetter = {
    actorId: 'account/a0',
    messageId: 'account/a1:life.2',
    envelope: {
      id: 'account/a1:life.2',
      from: 'account/a1',
      seq: 2,
      prev: 0,
      to: 'account/a0',
      name: 'deposit',
      payload: { n: 1 },
      sentAt: 0,
    },
    redrivable: true,
    error: { code: ErrorCode.DEAD_LETTERED, message: '', details: {} },
    attempts: 1,
    at: 1,
    unmarked: true,
  };
  const room = maxItemBytes - jsonSize(letter);
  return { ...letter, error: { ...letter.error, message: 'x'.repeat(room) } };
}

describe('appliedProof', () => {
  it('fits an item, though it says more than the letter it replaces, which just fitted', () => {
    const maxItemBytes = 1_100;
    const letter = letterFitting(maxItemBytes);
    expect(jsonSize(letter)).toBe(maxItemBytes);
    const engine = {
      clock: { now: () => 2 * DAY },
      markRetentionMs: DAY,
      store: { limits: { maxItemBytes } },
    } as unknown as TurnEngine;
    const proof = appliedProof(engine, letter);
    expect(jsonSize(proof)).toBeLessThanOrEqual(maxItemBytes);
    expect(proof).toMatchObject({
      messageId: letter.messageId,
      envelope: { payload: null },
      redrivable: false,
      applied: { at: 2 * DAY, expiresAt: 3 * DAY },
    });
  });
});
