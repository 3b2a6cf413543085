import { describe, expect, it } from 'vitest';
import { forEachAtMost } from './forEachAtMost.ts';

const tick = () => new Promise((resolve) => setTimeout(resolve, 1));

describe('forEachAtMost', () => {
  it('runs every item, never more than the limit at once', async () => {
    let running = 0;
    let most = 0;
    const done: number[] = [];
    await forEachAtMost(
      Array.from({ length: 50 }, (_, i) => i),
      4,
      async (i) => {
        running++;
        most = Math.max(most, running);
        await tick();
        done.push(i);
        running--;
      },
    );
    expect(most).toBe(4);
    expect(done.sort((a, b) => a - b)).toEqual(Array.from({ length: 50 }, (_, i) => i));
  });

  it('runs the others past a failure, then throws the first', async () => {
    const done: number[] = [];
    const run = forEachAtMost([1, 2, 3, 4, 5], 2, async (i) => {
      await tick();
      if (i === 2 || i === 4) throw new Error(`item ${i} failed`);
      done.push(i);
    });
    await expect(run).rejects.toThrow('item 2 failed');
    expect(done.sort()).toEqual([1, 3, 5]);
  });

  it('does nothing for no items', async () => {
    await forEachAtMost([], 8, async () => {
      throw new Error('never run');
    });
  });
});
