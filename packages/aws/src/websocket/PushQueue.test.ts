import { describe, expect, it } from 'vitest';
import { isThrottled, PushQueue } from './PushQueue.ts';

/** An error as the SDK throws it: a name and the HTTP status. */
function awsError(name: string, status: number): Error {
  return Object.assign(new Error(name), { name, $metadata: { httpStatusCode: status } });
}

/** A post that records what arrived, throttles the first `throttles` calls, and can be held. */
function recorder(throttles = 0) {
  const arrived: string[] = [];
  let calls = 0;
  let inFlight = 0;
  let most = 0;
  const held: (() => void)[] = [];
  let holding = false;
  const post = async (connectionId: string, piece: string) => {
    calls++;
    inFlight++;
    most = Math.max(most, inFlight);
    try {
      if (holding) await new Promise<void>((resolve) => held.push(resolve));
      else await new Promise((resolve) => setTimeout(resolve, 1));
      if (calls <= throttles) throw awsError('LimitExceededException', 429);
      if (connectionId === 'gone') throw awsError('GoneException', 410);
      if (connectionId === 'broken') throw awsError('ForbiddenException', 403);
      arrived.push(`${connectionId}:${piece}`);
    } finally {
      inFlight--;
    }
  };
  return {
    post,
    arrived,
    calls: () => calls,
    most: () => most,
    hold: () => {
      holding = true;
    },
    release: () => {
      holding = false;
      for (const resolve of held.splice(0)) resolve();
    },
  };
}

const quiet = { gone: () => {}, failed: () => {} };

describe('PushQueue', () => {
  it('retries a throttled call until it goes through', async () => {
    const r = recorder(3);
    const queue = new PushQueue(r.post, { backoffMs: 1, maxBackoffMs: 4 }, quiet);
    expect(await queue.push('c1', 's1', ['v1'])).toBe('sent');
    expect(r.arrived).toEqual(['c1:v1']);
    expect(r.calls()).toBe(4);
    expect(queue.throttledCalls).toBe(3);
  });

  it('sends only the newest of the updates that waited, and the newest after one in flight', async () => {
    const r = recorder();
    const queue = new PushQueue(r.post, { concurrency: 1 }, quiet);
    r.hold();
    const first = queue.push('c1', 's1', ['v1']);
    const waiting = [queue.push('c2', 's1', ['v2']), queue.push('c2', 's1', ['v3'])];
    const afterFirst = queue.push('c1', 's1', ['v4']);
    await new Promise((resolve) => setTimeout(resolve, 5));
    r.release();
    expect(await Promise.all([first, ...waiting, afterFirst])).toEqual([
      'sent',
      'sent',
      'sent',
      'sent',
    ]);
    expect(r.arrived.sort()).toEqual(['c1:v1', 'c1:v4', 'c2:v3']);
  });

  it('keeps at most `concurrency` calls in flight', async () => {
    const r = recorder();
    const queue = new PushQueue(r.post, { concurrency: 3 }, quiet);
    await Promise.all(Array.from({ length: 20 }, (_, i) => queue.push(`c${i}`, 's', ['v'])));
    expect(r.arrived).toHaveLength(20);
    expect(r.most()).toBe(3);
  });

  it('reports a gone connection once and stops its pushes, the others going on', async () => {
    const r = recorder();
    const gone: string[] = [];
    const queue = new PushQueue(
      r.post,
      { concurrency: 2 },
      { ...quiet, gone: (id) => gone.push(id) },
    );
    const outcomes = await Promise.all([
      queue.push('gone', 's1', ['v']),
      queue.push('gone', 's2', ['v']),
      queue.push('c1', 's1', ['v']),
      queue.push('c2', 's1', ['v']),
    ]);
    expect(outcomes).toEqual(['gone', 'gone', 'sent', 'sent']);
    expect(gone).toEqual(['gone']);
    expect(await queue.push('gone', 's3', ['v'])).toBe('gone');
  });

  it('reports any other failure without retrying it', async () => {
    const r = recorder();
    const failed: string[] = [];
    const queue = new PushQueue(r.post, {}, { ...quiet, failed: (id) => failed.push(id) });
    expect(await queue.push('broken', undefined, ['v'])).toBe('failed');
    expect(failed).toEqual(['broken']);
    expect(r.calls()).toBe(1);
  });

  it('paces calls to maxPushesPerSecond', async () => {
    const r = recorder();
    const queue = new PushQueue(r.post, { concurrency: 50, maxPushesPerSecond: 200 }, quiet);
    const started = performance.now();
    await Promise.all(Array.from({ length: 21 }, (_, i) => queue.push(`c${i}`, 's', ['v'])));
    // 21 calls at one per 5 ms: the last starts 100 ms after the first.
    expect(performance.now() - started).toBeGreaterThanOrEqual(95);
  });

  it('knows throttling by name or by status 429', () => {
    expect(isThrottled(awsError('LimitExceededException', 429))).toBe(true);
    expect(isThrottled(awsError('TooManyRequestsException', 429))).toBe(true);
    expect(isThrottled(awsError('Whatever', 429))).toBe(true);
    expect(isThrottled(awsError('GoneException', 410))).toBe(false);
  });
});
