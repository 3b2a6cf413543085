import { describe, expect, it } from 'vitest';
import {
  CALLS_AT_ONCE,
  CONNECTION_TIMEOUT_MS,
  callGate,
  maxAttempts,
  OPERATOR_HTTP,
  OperatorRetryStrategy,
  operatorClients,
  operatorRetries,
  REQUEST_TIMEOUT_MS,
} from './awsClients.ts';
import { REDRIVE_WAIT_S } from './queueDeadLetters.ts';

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

describe("the operating commands' calls at once", () => {
  it('run at most the limit at once, the others in the order they came, each place handed on', async () => {
    const gate = callGate(2);
    const started: number[] = [];
    let atOnce = 0;
    let most = 0;
    const ends = new Map<number, () => void>();
    const calls = [0, 1, 2, 3, 4].map((n) =>
      gate(async () => {
        started.push(n);
        most = Math.max(most, ++atOnce);
        await new Promise<void>((resolve) => ends.set(n, resolve));
        atOnce--;
        return n;
      }),
    );
    await new Promise((resolve) => setImmediate(resolve));
    expect(started).toEqual([0, 1]);
    ends.get(1)!();
    await new Promise((resolve) => setImmediate(resolve));
    expect(started).toEqual([0, 1, 2]);
    for (const n of [0, 2, 3, 4]) {
      await new Promise((resolve) => setImmediate(resolve));
      ends.get(n)!();
    }
    expect(await Promise.all(calls)).toEqual([0, 1, 2, 3, 4]);
    expect(most).toBe(2);
    // A call that throws frees its place too.
    await expect(gate(() => Promise.reject(new Error('no')))).rejects.toThrow('no');
    expect(await gate(async () => 'next')).toBe('next');
  });

  it('hold each client to as many calls as the SDK has sockets', () => {
    expect(CALLS_AT_ONCE).toBe(50);
    const { dynamodb, sqs } = operatorClients(
      { region: 'us-east-1', dynamodbEndpoint: undefined, sqsEndpoint: undefined },
      {},
    );
    for (const client of [dynamodb, sqs]) {
      expect(client.middlewareStack.identify()).toContainEqual(
        expect.stringMatching(/^batonCallsAtOnce - deserialize/),
      );
    }
  });
});

describe("the operating commands' timeouts", () => {
  it('give each attempt a connection and an answer timeout, the second an error and past the longest long poll', () => {
    expect(OPERATOR_HTTP.requestHandler).toEqual({
      connectionTimeout: CONNECTION_TIMEOUT_MS,
      requestTimeout: REQUEST_TIMEOUT_MS,
      throwOnRequestTimeout: true,
    });
    // A receive's long poll answers after its wait: the timeout leaves it room, and more.
    expect(REQUEST_TIMEOUT_MS).toBeGreaterThanOrEqual(REDRIVE_WAIT_S * 1000 * 4);
    const { dynamodb, sqs } = operatorClients(
      { region: 'us-east-1', dynamodbEndpoint: undefined, sqsEndpoint: undefined },
      {},
    );
    for (const client of [dynamodb, sqs]) {
      expect(client.middlewareStack.identify()).toContainEqual(
        expect.stringMatching(/^batonUnanswered - build/),
      );
    }
  });
});
