import { describe, expect, it } from 'vitest';
import { maxAttempts, OperatorRetryStrategy, operatorRetries } from './awsClients.ts';

/** The retries the strategy grants a call that keeps failing with `errorType`, and their pauses. */
async function retriesOf(strategy: OperatorRetryStrategy, errorType: string) {
  const pauses: number[] = [];
  let token = await strategy.acquireInitialRetryToken();
  for (;;) {
    try {
      token = await strategy.refreshRetryTokenForRetry(token, { errorType });
    } catch {
      return pauses;
    }
    pauses.push(token.getRetryDelay());
  }
}

describe("the operating commands' retries", () => {
  it('try a throttled call 10 times, pausing as the SDK does for throttling, and any other failure 3', async () => {
    const strategy = new OperatorRetryStrategy();
    const throttled = await retriesOf(strategy, 'THROTTLING');
    expect(throttled).toHaveLength(9);
    throttled.forEach((pause, i) => {
      expect(pause).toBeGreaterThanOrEqual(0);
      expect(pause).toBeLessThan(Math.min(1000 * 2 ** i, 20_000));
    });
    // An endpoint out of reach fails as fast as with the SDK's default.
    const transient = await retriesOf(strategy, 'TRANSIENT');
    expect(transient).toHaveLength(2);
    expect(Math.max(...transient)).toBeLessThan(100);
    // A 5xx (DynamoDB's InternalServerError) is retried as the SDK's standard mode retries it.
    expect(await retriesOf(strategy, 'SERVER_ERROR')).toHaveLength(2);
    expect(await retriesOf(strategy, 'CLIENT_ERROR')).toEqual([]);
  });

  it('take their attempts from AWS_MAX_ATTEMPTS, and leave the SDK its own mode under AWS_RETRY_MODE', async () => {
    expect(maxAttempts({})).toBe(10);
    expect(maxAttempts({ AWS_MAX_ATTEMPTS: '4' })).toBe(4);
    expect(maxAttempts({ AWS_MAX_ATTEMPTS: 'many' })).toBe(10);
    const set = operatorRetries({ AWS_MAX_ATTEMPTS: '2' });
    expect(
      'retryStrategy' in set && (await retriesOf(set.retryStrategy, 'THROTTLING')),
    ).toHaveLength(1);
    expect(operatorRetries({ AWS_RETRY_MODE: 'adaptive' })).toEqual({ retryMode: 'adaptive' });
  });
});
