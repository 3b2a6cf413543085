/**
 * Pushes at API Gateway's limit, end to end on the emulators: the local gateway refuses
 * `PostToConnection` calls past a small rate with 429 `LimitExceededException`, as API Gateway
 * does past the account's limit, and the handlers' management clients make one attempt each
 * (the SDK's own retries off), so every retry seen here is Baton's.
 */
import { PUSHES_THROTTLED_LOG } from '@baton/aws';
import { jsonLogger } from '@baton/core';
import { describe, expect, it } from 'vitest';
import { Account } from './fixtures/openAccount.ts';
import { balance, onePushAttempt, startWebSocketStack, until } from './fixtures/webSocketStack.ts';
import { account, webSocketSuite } from './fixtures/webSocketSuite.ts';

/** The stream handler's log lines, parsed. */
const streamLog: { message: string; throttled?: number }[] = [];
const WATCHERS = 8;

const suite = webSocketSuite(() =>
  startWebSocketStack(undefined, {
    // Far under what a fan-out to the watchers asks for: most calls of a burst are refused.
    postLimit: { perSecond: 20, burst: 3 },
    push: { backoffMs: 20, maxBackoffMs: 200 },
    streamLogger: jsonLogger({ write: (line) => streamLog.push(JSON.parse(line)) }),
    clients: onePushAttempt(),
  }),
);
const connect = suite.connect;

describe('pushes past the PostToConnection limit', () => {
  it('retries every throttled push, and each subscriber ends with the newest result', async () => {
    const key = account('hot');
    const watchers = Array.from({ length: WATCHERS }, () => connect());
    for (const watcher of watchers) watcher.subscribe(balance, { account: key }, () => {});
    const shows = (value: number) => () =>
      watchers.every((w) => w.getQueryState(balance, { account: key }).data === value);
    await until(shows(0), 'every watcher to see the first result');
    const before = suite.stack.gateway.throttled;
    const sender = connect();
    for (let i = 0; i < 5; i++) await sender.send(Account.ref(key), 'deposit', { amount: 1 });
    await until(shows(5), 'every watcher to see the newest balance');
    // The limit was hit, so the newest result arrived through Baton's retries.
    expect(suite.stack.gateway.throttled).toBeGreaterThan(before);
    // The stream handler logs the throttled calls it retried, for the construct's alarm, as its
    // invocation ends — which may be after the watchers saw the last push: some (a fan-out to
    // the watchers passes the burst), and no more than the gateway refused (the WebSocket
    // handler's own pushes are not its).
    const logged = () =>
      streamLog
        .filter((line) => line.message === PUSHES_THROTTLED_LOG)
        .reduce((sum, line) => sum + line.throttled!, 0);
    await until(() => logged() > 0, 'the stream handler to log the pushes it retried');
    expect(logged()).toBeLessThanOrEqual(suite.stack.gateway.throttled);
  });

  it('removes a gone connection while the others still get the update', async () => {
    const key = account('gone');
    const watchers = Array.from({ length: 4 }, () => connect());
    for (const watcher of watchers) watcher.subscribe(balance, { account: key }, () => {});
    await until(
      () => watchers.every((w) => w.getQueryState(balance, { account: key }).data === 0),
      'every watcher to see the first result',
    );
    const [lost] = suite.stack.gateway.connectionIds();
    suite.stack.gateway.lose(lost!);
    const sender = connect();
    await sender.send(Account.ref(key), 'deposit', { amount: 2 });
    await until(
      async () =>
        !(await suite.stack.registryItems()).some(
          (i) => i.pk === `C#${lost}` || i.sk.includes(lost!),
        ),
      'the gone connection to be removed',
    );
    // The others got the new balance (the lost one's client reconnects and resubscribes).
    await until(
      () => watchers.every((w) => w.getQueryState(balance, { account: key }).data === 2),
      'every watcher to see the new balance',
    );
  });
});
