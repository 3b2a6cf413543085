/**
 * `readEnvironment`: the variables a deployed function reads its resources from, all checked
 * at once so a function deployed without them fails at cold start naming every one to set.
 */
import { BatonError, ErrorCode } from '@baton/core';
import { afterEach, describe, expect, it } from 'vitest';
import {
  BATON_ENV,
  connectionLimitsFromEnvironment,
  readEnvironment,
  storeOptionsFromEnvironment,
  sweeperOptionsFromEnvironment,
} from './environment.ts';

const FULL = {
  BATON_TABLE: 'app-table',
  BATON_INBOX_URL: 'https://sqs.eu-west-1.amazonaws.com/123456789012/app-inbox.fifo',
  BATON_CONNECTIONS_TABLE: 'app-connections',
  BATON_WEBSOCKET_ENDPOINT: 'https://abc123.execute-api.eu-west-1.amazonaws.com/prod',
};

/** The error `read()` throws; fails the test if it throws none or another kind. */
function thrown(read: () => unknown): BatonError {
  try {
    read();
  } catch (error) {
    expect(error).toBeInstanceOf(BatonError);
    return error as BatonError;
  }
  throw new Error('expected readEnvironment to throw');
}

describe('readEnvironment', () => {
  it('names the variables the CDK construct sets', () => {
    expect(BATON_ENV).toEqual({
      table: 'BATON_TABLE',
      inboxUrl: 'BATON_INBOX_URL',
      timerQueueUrl: 'BATON_TIMER_QUEUE_URL',
      connectionsTable: 'BATON_CONNECTIONS_TABLE',
      webSocketEndpoint: 'BATON_WEBSOCKET_ENDPOINT',
      metrics: 'BATON_METRICS',
      outboxShards: 'BATON_OUTBOX_SHARDS',
      sweepConcurrency: 'BATON_SWEEP_CONCURRENCY',
      maxSubscriptions: 'BATON_MAX_SUBSCRIPTIONS',
      maxFramesPerSecond: 'BATON_MAX_FRAMES_PER_SECOND',
      maxConnectionsPerUser: 'BATON_MAX_CONNECTIONS_PER_USER',
      allowedOrigins: 'BATON_ALLOWED_ORIGINS',
    });
  });

  it('returns the value of each variable asked for, by what it holds', () => {
    expect(
      readEnvironment(['table', 'inboxUrl', 'connectionsTable', 'webSocketEndpoint'], FULL),
    ).toEqual({
      table: 'app-table',
      inboxUrl: FULL.BATON_INBOX_URL,
      connectionsTable: 'app-connections',
      webSocketEndpoint: FULL.BATON_WEBSOCKET_ENDPOINT,
    });
  });

  it('throws one INVALID_ARGUMENT naming every missing or empty variable, in the order asked', () => {
    const error = thrown(() =>
      readEnvironment(['table', 'inboxUrl', 'connectionsTable', 'webSocketEndpoint'], {
        BATON_TABLE: 'app-table',
        BATON_INBOX_URL: '',
        BATON_WEBSOCKET_ENDPOINT: undefined,
      }),
    );
    expect(error.code).toBe(ErrorCode.INVALID_ARGUMENT);
    expect(error.message).toMatch(
      /^missing environment: BATON_INBOX_URL, BATON_CONNECTIONS_TABLE, BATON_WEBSOCKET_ENDPOINT;/,
    );
    expect(error.details.missing).toEqual([
      'BATON_INBOX_URL',
      'BATON_CONNECTIONS_TABLE',
      'BATON_WEBSOCKET_ENDPOINT',
    ]);
  });

  it('treats a variable set to the empty string as missing', () => {
    const error = thrown(() => readEnvironment(['table'], { BATON_TABLE: '' }));
    expect(error.code).toBe(ErrorCode.INVALID_ARGUMENT);
    expect(error.details.missing).toEqual(['BATON_TABLE']);
  });

  it('reads only the variables asked for: others may be missing, and are not looked at', () => {
    const looked: PropertyKey[] = [];
    const env = new Proxy({ BATON_TABLE: 'app-table' } as Record<string, string | undefined>, {
      get(target, name) {
        looked.push(name);
        return Reflect.get(target, name);
      },
    });
    const values = readEnvironment(['table'], env);
    expect(values).toEqual({ table: 'app-table' });
    expect(Object.keys(values)).toEqual(['table']);
    expect(looked).toEqual(['BATON_TABLE']);
  });

  describe('without an env argument', () => {
    const saved = process.env.BATON_TABLE;
    afterEach(() => {
      if (saved === undefined) delete process.env.BATON_TABLE;
      else process.env.BATON_TABLE = saved;
    });

    it('reads process.env, at each call', () => {
      process.env.BATON_TABLE = 'from-process-env';
      expect(readEnvironment(['table'])).toEqual({ table: 'from-process-env' });
      delete process.env.BATON_TABLE;
      expect(thrown(() => readEnvironment(['table'])).details.missing).toEqual(['BATON_TABLE']);
    });
  });
});

describe('storeOptionsFromEnvironment', () => {
  it('gives the store BATON_OUTBOX_SHARDS as outboxShards, and nothing when it is unset', () => {
    expect(storeOptionsFromEnvironment({ BATON_OUTBOX_SHARDS: '32' })).toEqual({
      outboxShards: 32,
    });
    expect(storeOptionsFromEnvironment({})).toEqual({});
    expect(storeOptionsFromEnvironment({ BATON_OUTBOX_SHARDS: '' })).toEqual({});
  });

  it('refuses a value that is not a whole number, naming the variable and the value', () => {
    for (const value of ['8.5', '-1', 'eight', ' 8']) {
      const error = thrown(() => storeOptionsFromEnvironment({ BATON_OUTBOX_SHARDS: value }));
      expect(error.code).toBe(ErrorCode.INVALID_ARGUMENT);
      expect(error.message).toContain(`BATON_OUTBOX_SHARDS must be a whole number`);
      expect(error.details).toEqual({ variable: 'BATON_OUTBOX_SHARDS', value });
    }
  });
});

describe('sweeperOptionsFromEnvironment', () => {
  it('gives the sweeper BATON_SWEEP_CONCURRENCY as concurrency, and nothing when it is unset', () => {
    expect(sweeperOptionsFromEnvironment({ BATON_SWEEP_CONCURRENCY: '16' })).toEqual({
      concurrency: 16,
    });
    expect(sweeperOptionsFromEnvironment({})).toEqual({});
    expect(sweeperOptionsFromEnvironment({ BATON_SWEEP_CONCURRENCY: '' })).toEqual({});
  });

  it('refuses a value that is not a whole number, naming the variable and the value', () => {
    const error = thrown(() => sweeperOptionsFromEnvironment({ BATON_SWEEP_CONCURRENCY: 'four' }));
    expect(error.code).toBe(ErrorCode.INVALID_ARGUMENT);
    expect(error.message).toBe(
      `BATON_SWEEP_CONCURRENCY must be a whole number of groups of outboxes drained at once (the construct's sweeperConcurrency), got "four"`,
    );
    expect(error.details).toEqual({ variable: 'BATON_SWEEP_CONCURRENCY', value: 'four' });
  });
});

describe('connectionLimitsFromEnvironment', () => {
  it('gives the WebSocket handler the caps that are set, and nothing for the others', () => {
    expect(
      connectionLimitsFromEnvironment({
        BATON_MAX_SUBSCRIPTIONS: '20',
        BATON_MAX_CONNECTIONS_PER_USER: '5',
      }),
    ).toEqual({ maxSubscriptions: 20, maxConnectionsPerUser: 5 });
    expect(connectionLimitsFromEnvironment({ BATON_MAX_FRAMES_PER_SECOND: '50' })).toEqual({
      maxFramesPerSecond: 50,
    });
    expect(connectionLimitsFromEnvironment({})).toEqual({});
  });

  it('refuses a value that is not a whole number, naming the variable', () => {
    const error = thrown(() =>
      connectionLimitsFromEnvironment({ BATON_MAX_CONNECTIONS_PER_USER: 'many' }),
    );
    expect(error.code).toBe(ErrorCode.INVALID_ARGUMENT);
    expect(error.message).toContain('BATON_MAX_CONNECTIONS_PER_USER must be a whole number');
  });
});
