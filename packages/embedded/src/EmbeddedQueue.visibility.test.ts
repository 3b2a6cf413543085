import { MAX_VISIBILITY_TIMEOUT_MS } from '@baton/core';
import { describe, expect, it } from 'vitest';
import { EmbeddedQueue } from './EmbeddedQueue.ts';

const HOUR = 60 * 60 * 1000;
const VT = { visibilityTimeoutMs: 2 * HOUR };

function setup() {
  const clock = { t: 1_000_000, now: () => clock.t };
  return { clock, queue: new EmbeddedQueue({ clock }) };
}

describe("EmbeddedQueue's 12 hours of visibility, counted from the receive as SQS counts them", () => {
  it('refuses a release past 12 hours from the receive, releasing nothing, and takes one up to them', async () => {
    const { queue, clock } = setup();
    await queue.send([{ group: 'g', dedupeId: 'm', body: '1' }]);
    const [m] = await queue.receive({ max: 1, ...VT });
    const hiddenUntil = queue.nextVisibleAt();
    clock.t += HOUR;
    await expect(queue.release([m!.receipt], MAX_VISIBILITY_TIMEOUT_MS)).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
      message: expect.stringMatching(
        /message m has 39600000 ms of them left, got delayMs 43200000: release it for at most that; nothing was released$/,
      ),
    });
    expect(queue.nextVisibleAt()).toBe(hiddenUntil);
    await queue.release([m!.receipt], 11 * HOUR);
    expect(queue.nextVisibleAt()).toBe(clock.t + 11 * HOUR);
    // A stale receipt is ignored, as always.
    await queue.release(['1.1.0'], MAX_VISIBILITY_TIMEOUT_MS);
  });

  it('counts them again from each new receive', async () => {
    const { queue, clock } = setup();
    await queue.send([{ group: 'g', dedupeId: 'm', body: '1' }]);
    await queue.receive({ max: 1, ...VT });
    clock.t += 2 * HOUR;
    const [again] = await queue.receive({ max: 1, ...VT });
    expect(again!.receiveCount).toBe(2);
    await queue.release([again!.receipt], MAX_VISIBILITY_TIMEOUT_MS);
    expect(queue.nextVisibleAt()).toBe(clock.t + MAX_VISIBILITY_TIMEOUT_MS);
  });
});
