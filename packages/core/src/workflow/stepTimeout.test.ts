import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ErrorCode } from '../errors.ts';
import { withinTimeout } from './stepTimeout.ts';

describe('withinTimeout', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('leaves no timer behind once an attempt ends in time', async () => {
    await expect(withinTimeout('charge', 1_000, async () => 'charged')).resolves.toBe('charged');
    await expect(
      withinTimeout('charge', 1_000, async () => {
        throw new Error('declined');
      }),
    ).rejects.toThrow('declined');
    expect(vi.getTimerCount()).toBe(0);
  });

  it('fails an attempt past its timeout with TIMED_OUT, naming the step, and aborts its signal', async () => {
    let signal: AbortSignal | undefined;
    const running = withinTimeout('charge', 1_000, (given) => {
      signal = given;
      return new Promise<never>(() => {});
    });
    const failed = expect(running).rejects.toMatchObject({
      code: ErrorCode.TIMED_OUT,
      details: { step: 'charge', timeoutMs: 1_000 },
    });
    await vi.advanceTimersByTimeAsync(999);
    expect(signal?.aborted).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    await failed;
    expect(signal?.aborted).toBe(true);
  });
});
