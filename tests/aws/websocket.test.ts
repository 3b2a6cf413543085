/**
 * The reactive side on AWS end to end: BatonClient → LocalWebSocketGateway → the WebSocket
 * handler, sends processed by the worker, and the stream handler pushing new results through
 * the real ApiGatewayManagementApiClient — on DynamoDB Local and ElasticMQ.
 */
import type { BatonClient } from '@baton/client';
import { isBatonError } from '@baton/core';
import { MAX_RESUME_VERSION } from '@baton/protocol';
import { describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { Account } from './fixtures/openAccount.ts';
import {
  balance,
  privateBalance,
  runs,
  startWebSocketStack,
  statement,
  until,
} from './fixtures/webSocketStack.ts';
import { account, webSocketSuite } from './fixtures/webSocketSuite.ts';

let skewMs = 0;
const suite = webSocketSuite(() => startWebSocketStack({ now: () => Date.now() + skewMs }));
const connect = suite.connect;

/** Waits until the client's query state satisfies `check`. */
function seen<T>(
  client: BatonClient,
  query: typeof balance | typeof privateBalance | typeof statement,
  args: { account: string },
  check: (state: ReturnType<BatonClient['getQueryState']>) => T,
) {
  return until(() => check(client.getQueryState(query, args)), `${query.name}(${args.account})`);
}

describe('the WebSocket handlers on API Gateway (emulated), DynamoDB Local and ElasticMQ', () => {
  it('pushes the result of another client’s send to both subscribers of one shared instance, with one run', async () => {
    const key = account('shared');
    const [a, b, sender] = [connect(), connect(), connect()];
    a.subscribe(balance, { account: key }, () => {});
    b.subscribe(balance, { account: key }, () => {});
    for (const client of [a, b]) await seen(client, balance, { account: key }, (s) => s.data === 0);
    const items = await suite.stack.registryItems();
    const instances = items.filter((i) => i.pk.startsWith('Q#') && i.sk === 'Q');
    expect(instances).toHaveLength(1);
    expect(items.filter((i) => i.pk === instances[0]!.pk && i.sk.startsWith('S#'))).toHaveLength(2);
    expect(items.filter((i) => i.pk === `D#account/${key}`)).toHaveLength(1);

    const runKey = `balance:${JSON.stringify({ account: key })}`;
    const before = runs.get(runKey) ?? 0;
    await sender.send(Account.ref(key), 'deposit', { amount: 5 });
    for (const client of [a, b]) await seen(client, balance, { account: key }, (s) => s.data === 5);
    expect(runs.get(runKey)! - before).toBe(1);
    expect(a.getQueryState(balance, { account: key }).version).toBe(2);
  });

  it('lets no resume raise a shared instance past MAX_RESUME_VERSION: its subscribers keep getting results', async () => {
    const key = account('resume');
    const [watcher, sender] = [connect(), connect()];
    watcher.subscribe(balance, { account: key }, () => {});
    await seen(watcher, balance, { account: key }, (s) => s.data === 0);
    // Another connection resumes the same instance from the last safe integer.
    const forger = new WebSocket(suite.stack.gateway.url, ['baton.v1']);
    await new Promise((resolve, reject) => forger.once('open', resolve).once('error', reject));
    const answered = new Promise<{ version: number }>((resolve) =>
      forger.once('message', (data) => resolve(JSON.parse(String(data)))),
    );
    const resume = { version: Number.MAX_SAFE_INTEGER, hash: 'forged' };
    const args = { account: key };
    forger.send(
      JSON.stringify({ v: 1, type: 'subscribe', id: 'f', query: 'balance', args, resume }),
    );
    expect((await answered).version).toBe(MAX_RESUME_VERSION);
    forger.close();

    await sender.send(Account.ref(key), 'deposit', { amount: 5 });
    await seen(watcher, balance, { account: key }, (s) => s.data === 5);
    expect(watcher.getQueryState(balance, { account: key }).version).toBe(MAX_RESUME_VERSION + 1);
  });

  it('answers an ask with the handler’s reply, and a rejected one with its error', async () => {
    const key = account('ask');
    const client = connect();
    expect(await client.ask(Account.ref(key), 'deposit', { amount: 9 })).toBe(9);
    expect(await client.ask(Account.ref(key), 'balance', {})).toBe(9);
    const refused = await client.ask(Account.ref(key), 'withdraw', { amount: 100 }).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(isBatonError(refused) && refused.code).toBe('REJECTED');
  });

  it('resolves a visible send only once the subscribed view shows the write', async () => {
    const key = account('visible');
    const client = connect();
    client.subscribe(balance, { account: key }, () => {});
    await seen(client, balance, { account: key }, (s) => s.status === 'success');
    for (const amount of [3, 4]) {
      const before = client.getQueryState(balance, { account: key }).data as number;
      await client.send(Account.ref(key), 'deposit', { amount }, { visible: true });
      expect(client.getQueryState(balance, { account: key }).data).toBe(before + amount);
    }
  });

  it('refuses a query the identity may not see on that subscription alone', async () => {
    const key = account('private');
    const mallory = connect('mallory');
    mallory.subscribe(privateBalance, { account: key }, () => {});
    mallory.subscribe(balance, { account: key }, () => {});
    const refused = await seen(mallory, privateBalance, { account: key }, (s) =>
      s.status === 'error' ? s.error : undefined,
    );
    expect(refused.code).toBe('REJECTED');
    expect(refused.message).toMatch(/mallory may not see/);
    await seen(mallory, balance, { account: key }, (s) => s.status === 'success');
    const owner = connect(key);
    owner.subscribe(privateBalance, { account: key }, () => {});
    await seen(owner, privateBalance, { account: key }, (s) => s.data === 0);
  });

  it('refuses a connection the auth hook throws for with 401, and echoes the baton.v1 subprotocol', async () => {
    const status = await new Promise<number | undefined>((resolve) => {
      const socket = new WebSocket(`${suite.stack.gateway.url}?token=intruder`, ['baton.v1']);
      socket.on('unexpected-response', (_request, response) => resolve(response.statusCode));
      socket.on('open', () => resolve(undefined));
      socket.on('error', () => {});
    });
    expect(status).toBe(401);
    const socket = new WebSocket(suite.stack.gateway.url, ['baton.v1', 'token.alice']);
    await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
    expect(socket.protocol).toBe('baton.v1');
    socket.close();
    // This host pushes without waiting for acks: a client offering to go without them is told so.
    const unacked = new WebSocket(suite.stack.gateway.url, ['baton.v1', 'baton.v1.unacked']);
    await new Promise((resolve, reject) => unacked.once('open', resolve).once('error', reject));
    expect(unacked.protocol).toBe('baton.v1.unacked');
    unacked.close();
  });

  it('gets pushes from a BatonClient that sends no ack for them, as the host needs none', async () => {
    const key = account('unacked');
    const [watcher, sender] = [connect(), connect()];
    watcher.subscribe(balance, { account: key }, () => {});
    await seen(watcher, balance, { account: key }, (s) => s.data === 0);
    for (const amount of [2, 3]) {
      await sender.send(Account.ref(key), 'deposit', { amount }, { visible: true });
    }
    await seen(watcher, balance, { account: key }, (s) => s.data === 5);
    await new Promise((resolve) => setTimeout(resolve, 50)); // past when an ack would have left
    const types = suite.stack.frames.map((body) => (JSON.parse(body) as { type: string }).type);
    expect(types).toContain('subscribe');
    expect(types.filter((type) => type === 'ack' || type === 'acks')).toEqual([]);
  });

  it('sends a result over 128 KB in chunks', async () => {
    const key = account('big');
    const client = connect();
    client.subscribe(statement, { account: key }, () => {});
    const value = (await seen(client, statement, { account: key }, (s) => s.data)) as {
      lines: string[];
    };
    expect(value.lines).toHaveLength(3000);
    expect(JSON.stringify(value).length).toBeGreaterThan(128 * 1024);
  });

  it('cleans the registry on disconnect', async () => {
    const key = account('bye');
    const client = connect('bye');
    client.subscribe(balance, { account: key }, () => {});
    client.subscribe(privateBalance, { account: 'bye' }, () => {});
    await seen(client, privateBalance, { account: 'bye' }, (s) => s.status === 'success');
    const kinds = new Set(
      (await suite.stack.registryItems()).map(
        (i) => `${i.pk.slice(0, 2)}${i.sk === 'Q' || i.sk === 'C' ? i.sk : 'S'}`,
      ),
    );
    // U#S: the user's count of the connection (its sort key is the connection id).
    expect([...kinds].sort()).toEqual(['C#C', 'C#S', 'D#S', 'Q#Q', 'Q#S', 'U#S']);
    for (const c of suite.clients.splice(0)) c.close();
    await until(async () => (await suite.stack.registryItems()).length === 0, 'an empty registry');
  });

  it('removes a connection that went without $disconnect on the next push to it', async () => {
    const key = account('gone');
    const watcher = connect('gone-user'); // signed in: its count under its user goes too
    watcher.subscribe(balance, { account: key }, () => {});
    await seen(watcher, balance, { account: key }, (s) => s.data === 0);
    const [lost] = suite.stack.gateway.connectionIds();
    suite.stack.gateway.lose(lost!);
    watcher.close();
    const items = await suite.stack.registryItems();
    expect(items.some((i) => i.pk === `C#${lost}`)).toBe(true);
    expect(items.some((i) => i.pk.startsWith('U#') && i.sk === lost)).toBe(true);
    const sender = connect();
    await sender.send(Account.ref(key), 'deposit', { amount: 1 });
    await until(
      async () =>
        !(await suite.stack.registryItems()).some(
          (i) => i.pk === `C#${lost}` || i.sk.includes(lost!),
        ),
      'the gone connection to be removed',
    );
  });

  it('collects a connection whose lease lapsed', async () => {
    const key = account('lapsed');
    const client = connect();
    client.subscribe(balance, { account: key }, () => {});
    await seen(client, balance, { account: key }, (s) => s.data === 0);
    const [id] = suite.stack.gateway.connectionIds();
    expect(await suite.stack.sweep()).toEqual({ removed: 0 });
    skewMs = 11 * 60_000;
    try {
      expect((await suite.stack.sweep()).removed).toBeGreaterThanOrEqual(1);
    } finally {
      skewMs = 0;
    }
    expect((await suite.stack.registryItems()).some((i) => i.pk === `C#${id}`)).toBe(false);
    await until(
      () => !suite.stack.gateway.connectionIds().includes(id!),
      'the socket to be closed',
    );
  });
});
