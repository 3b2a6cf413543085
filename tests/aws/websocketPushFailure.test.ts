/**
 * A push API Gateway fails (a 5xx), end to end on the emulators: the local gateway answers a
 * connection's next `PostToConnection` with 500, and the handlers' management clients make one
 * attempt each (the SDK's own retries off), so the push is lost. Its connection is closed, and
 * the client resumes with the newest result.
 */
import { jsonLogger } from '@baton/core';
import { describe, expect, it } from 'vitest';
import { Account } from './fixtures/openAccount.ts';
import { balance, onePushAttempt, startWebSocketStack, until } from './fixtures/webSocketStack.ts';
import { account, webSocketSuite } from './fixtures/webSocketSuite.ts';

/** The stream handler's log lines, parsed. */
const streamLog: { message: string; connectionId?: string }[] = [];

const suite = webSocketSuite(() =>
  startWebSocketStack(undefined, {
    streamLogger: jsonLogger({ write: (line) => streamLog.push(JSON.parse(line)) }),
    clients: onePushAttempt(),
  }),
);
const connect = suite.connect;

describe('a push API Gateway fails', () => {
  it('closes its connection, and the client resumes with the newest result', async () => {
    const key = account('failed-push');
    const watchers = Array.from({ length: 3 }, () => connect());
    for (const watcher of watchers) watcher.subscribe(balance, { account: key }, () => {});
    const shows = (value: number) => () =>
      watchers.every((w) => w.getQueryState(balance, { account: key }).data === value);
    await until(shows(0), 'every watcher to see the first result');
    const [failing] = suite.stack.gateway.connectionIds();
    suite.stack.gateway.failPosts(failing!);
    await connect().send(Account.ref(key), 'deposit', { amount: 2 });
    // The push to one watcher failed; its connection was closed, and its client came back.
    await until(shows(2), 'every watcher to see the new balance');
    expect(suite.stack.gateway.connectionIds()).not.toContain(failing);
    expect(
      streamLog.some((line) => line.message === 'push failed' && line.connectionId === failing),
    ).toBe(true);
  });
});
