/**
 * A bulk action stops at its first failure: the item's own error when nothing was done yet,
 * else one that says how far it got, each list of items clipped in the message and whole in the
 * details.
 */
import { BatonError, ErrorCode } from '@baton/core';
import { describe, expect, it } from 'vitest';
import { eachInTurn, isPartway } from './partway.ts';

const words = {
  did: 'sent resume to',
  items: 'paused instances',
  name: (n: number) => `i-${n}`,
  json: (n: number) => ({ id: `i-${n}` }),
  again: 'Run it again.',
};
const failAt = (at: number, error: unknown) => async (n: number) => {
  if (n === at) throw error;
  return n * 10;
};

describe('eachInTurn', () => {
  it('resolves with what each item gave, in order', async () => {
    expect(await eachInTurn([1, 2, 3], failAt(-1, undefined), words)).toEqual([10, 20, 30]);
  });

  it("throws the first item's error as it is: nothing was done", async () => {
    const refusal = new BatonError(ErrorCode.INVALID_ARGUMENT, 'no such instance');
    const thrown = await eachInTurn([0, 1], failAt(0, refusal), words).catch((e: unknown) => e);
    expect(thrown).toBe(refusal);
    expect(isPartway(thrown)).toBe(false);
  });

  it('says what was done, where it stopped and what it did not reach, past a few by count', async () => {
    const items = Array.from({ length: 9 }, (_, n) => n);
    const failure = new Error('socket hang up.');
    const thrown = (await eachInTurn(items, failAt(7, failure), words).catch(
      (e) => e,
    )) as BatonError;
    expect(isPartway(thrown)).toBe(true);
    expect(thrown.code).toBe(ErrorCode.UNAVAILABLE);
    expect(thrown.cause).toBe(failure);
    expect(thrown.message).toBe(
      'sent resume to 7 of the 9 paused instances (i-0, i-1, i-2, i-3, i-4 and 2 more), then stopped at i-7: socket hang up. Not reached: i-8. Run it again.',
    );
    // What was done as the action gave it; the rest as `json` names them.
    expect(thrown.details.partway).toEqual({
      done: [0, 10, 20, 30, 40, 50, 60],
      at: { id: 'i-7' },
      notReached: [{ id: 'i-8' }],
    });
  });

  it("keeps a Baton error's code and details, and says nothing of items not reached when none are", async () => {
    const refusal = new BatonError(ErrorCode.INVALID_STATE, 'it is running', {
      details: { id: 'i-1' },
    });
    const thrown = (await eachInTurn([0, 1], failAt(1, refusal), words).catch(
      (e) => e,
    )) as BatonError;
    expect(thrown.code).toBe(ErrorCode.INVALID_STATE);
    expect(thrown.details).toMatchObject({ id: 'i-1', partway: { done: [0], notReached: [] } });
    expect(thrown.message).toBe(
      'sent resume to 1 of the 2 paused instances (i-0), then stopped at i-1: it is running. Run it again.',
    );
  });
});
