/**
 * The bank example on the AWS doors, wired as deployed (the app's `auth` on `$connect` and on
 * the HTTP ingress, the ingress's IAM principal) on DynamoDB Local and ElasticMQ: an anonymous
 * caller, another user and an IAM principal without rights each try every internal handler,
 * alice's actor and alice's view. Each is refused (FORBIDDEN / UNAUTHENTICATED), nothing is
 * applied, nothing leaks. The ingress scopes keys and outcome reads by the SigV4 principal.
 */
import { randomUUID } from 'node:crypto';
import { createAwsClients, createFifoQueue, createTable, DynamoStore, SqsQueue } from '@baton/aws';
import { authCaller, ingressHandler, workerHandler } from '@baton/aws/lambda';
import { LocalSqsEventSource } from '@baton/aws/local';
import { silentLogger } from '@baton/core';
import { Client } from '@baton/core/client';
import type { ServerMessage } from '@baton/protocol';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { WebSocket } from 'ws';
import bank from '../../examples/bank/src/app.ts';
import { Account } from '../../examples/bank/src/bank.ts';
import {
  ALICE_BALANCE,
  attackFrames,
  attackIds,
  leaks,
  MESSAGES,
  tokens,
} from '../authorization/attacks.ts';
import { Account as OpenAccount } from './fixtures/openAccount.ts';
import { startWebSocketStack, until, type WebSocketStack } from './fixtures/webSocketStack.ts';

/** Opens a socket through the gateway; resolves with what it received once `done` says so. */
async function attack(url: string, token: string | undefined, tag: string) {
  const protocols = ['baton.v1', ...(token ? [`token.${token}`] : [])];
  const socket = new WebSocket(url, protocols);
  const frames: ServerMessage[] = [];
  socket.on('message', (data) => frames.push(JSON.parse(String(data)) as ServerMessage));
  const closed = new Promise<number>((resolve) => socket.on('close', (code) => resolve(code)));
  const opened = await new Promise<boolean>((resolve) => {
    socket.once('open', () => resolve(true));
    socket.once('error', () => resolve(false));
    socket.once('unexpected-response', () => resolve(false));
  });
  if (!opened) {
    socket.terminate();
    return { opened, frames };
  }
  for (const frame of attackFrames(tag)) socket.send(JSON.stringify(frame));
  const { requests, subscriptions } = attackIds(tag);
  const answered = (id: string) =>
    frames.some((f) => f.type === 'error' && (f.requestId === id || f.id === id));
  await until(() => [...requests, ...subscriptions].every(answered), `${tag}'s refusals`);
  socket.close();
  await closed;
  return { opened, frames };
}

describe('the bank on the API Gateway WebSocket handler', () => {
  let stack: WebSocketStack;

  beforeAll(async () => {
    stack = await startWebSocketStack(undefined, { app: bank });
    const client = new Client({ actors: bank.actors, store: stack.store, queue: stack.queue });
    await client
      .asSystem()
      .ask(Account.ref('alice'), 'deposit', { amount: ALICE_BALANCE }, { timeoutMs: 20_000 });
  }, 60_000);

  afterAll(async () => {
    await stack?.stop();
  });

  it('refuses an anonymous connection and a forged token on $connect', async () => {
    for (const token of [undefined, `${tokens.mallory}x`]) {
      const { opened } = await attack(stack.gateway.url, token, 'nobody');
      expect(opened).toBe(false);
    }
  });

  it('refuses every internal handler, alice’s actor and alice’s view to another user, applying nothing and leaking nothing', async () => {
    const before = await stack.store.load('account/alice');
    const { opened, frames } = await attack(stack.gateway.url, tokens.mallory, 'mallory');

    expect(opened).toBe(true);
    expect(leaks(frames, 'mallory')).toEqual([]);
    // Nothing was enqueued for alice: the inbox holds no message at all.
    expect(await stack.queue.receive({ max: 10, visibilityTimeoutMs: 1 })).toEqual([]);
    expect(await stack.store.load('account/alice')).toEqual(before);
    // No subscription was registered for the refused ones: no query instance, no subscriber.
    // (The prefixes keep their `#`: a user's connection item has the connection's id for its
    // sort key, which may begin with an S.)
    const items = await stack.registryItems();
    expect(items.filter((item) => item.pk.startsWith('Q#') || item.sk.startsWith('S#'))).toEqual(
      [],
    );
  });

  it('refuses another user’s ask to an account whose message id is past a key’s limit as FORBIDDEN, not as a failure to retry', async () => {
    const socket = new WebSocket(stack.gateway.url, ['baton.v1', `token.${tokens.mallory}`]);
    const frames: ServerMessage[] = [];
    socket.on('message', (data) => frames.push(JSON.parse(String(data)) as ServerMessage));
    await new Promise((resolve) => socket.once('open', resolve));
    // A key within an actor key's 1,024 bytes whose message id, which an ask waits under, is past
    // a partition key's 2,048: JSON writes each of these characters in six.
    const to = Account.ref(`alice${'\u0001'.repeat(400)}`).id;
    for (const type of ['ask', 'send'] as const) {
      const frame = { v: 1, type, requestId: type, to, name: 'withdraw', payload: { amount: 1 } };
      socket.send(JSON.stringify({ ...frame, idempotencyKey: type, visible: type === 'send' }));
    }
    const answered = (id: string) => frames.find((f) => f.type === 'error' && f.requestId === id);
    await until(() => answered('ask') && answered('send'), 'the refusals');
    for (const id of ['ask', 'send']) {
      const error = answered(id);
      expect(error?.type === 'error' && error.error.code).toBe('FORBIDDEN');
    }
    socket.close();
    expect((await stack.registryItems()).filter((item) => item.pk.startsWith('R#'))).toEqual([]);
  });
});

describe('the bank’s actors and queries on an API Gateway WebSocket handler that accepts anonymous connections', () => {
  let stack: WebSocketStack;

  beforeAll(async () => {
    const { auth: _auth, ...anonymous } = bank;
    stack = await startWebSocketStack(undefined, { app: anonymous });
  }, 60_000);

  afterAll(async () => {
    await stack?.stop();
  });

  it('refuses an anonymous connection every internal handler, alice’s actor and every view, applying nothing and leaking nothing', async () => {
    const { opened, frames } = await attack(stack.gateway.url, undefined, 'anon');

    expect(opened).toBe(true);
    expect(leaks(frames, 'anon')).toEqual([]);
    expect(await stack.queue.receive({ max: 10, visibilityTimeoutMs: 1 })).toEqual([]);
    expect(await stack.store.load('account/alice')).toBeUndefined();
  });
});

function httpEvent(
  path: string,
  body: unknown,
  {
    method = 'POST',
    token,
    principal,
  }: { method?: string; token?: string; principal?: string } = {},
): APIGatewayProxyEventV2 {
  return {
    rawPath: path,
    body: body === undefined ? '' : JSON.stringify(body),
    isBase64Encoded: false,
    headers: {
      'content-type': 'application/json',
      ...(token ? { authorization: `Bearer ${token}` } : {}),
    },
    requestContext: {
      http: { method },
      ...(principal ? { authorizer: { iam: { userArn: principal } } } : {}),
    },
  } as unknown as APIGatewayProxyEventV2;
}

describe('the bank on the HTTP ingress', () => {
  const { dynamodb, sqs } = createAwsClients({
    dynamodbEndpoint: inject('dynamodbEndpoint'),
    sqsEndpoint: inject('sqsEndpoint'),
  });
  const tableName = `authz-${randomUUID().slice(0, 8)}`;
  let store: DynamoStore;
  let queue: SqsQueue;
  let ingress: ReturnType<typeof ingressHandler>;
  let queueUrl: string;

  beforeAll(async () => {
    await createTable(dynamodb, tableName);
    ({ queueUrl } = await createFifoQueue(sqs, tableName, { visibilityTimeoutMs: 2000 }));
    store = new DynamoStore({ client: dynamodb, tableName });
    queue = new SqsQueue({ client: sqs, queueUrl });
    // As ingressFromEnvironment wires it for an app with `auth`.
    ingress = ingressHandler({
      actors: bank.actors,
      store,
      queue,
      askTimeoutMs: 10_000,
      caller: authCaller(bank.auth!),
    });
  });

  const callers = {
    anonymous: {},
    'another user': { token: tokens.mallory },
    'an IAM principal without rights': { principal: 'arn:aws:iam::123456789012:user/intruder' },
  };

  it.each(Object.entries(callers))(
    'refuses %s every internal handler and every handler of alice’s actor, enqueuing nothing and leaking nothing',
    async (_who, as) => {
      for (const { name, payload } of MESSAGES) {
        for (const action of ['send', 'ask']) {
          const body = { to: 'account/alice', name, payload, idempotencyKey: `k-${name}` };
          const response = await ingress(httpEvent(`/${action}`, body, as));
          const { error } = JSON.parse(response.body);
          const expected = 'token' in as || 'principal' in as ? 403 : 401;
          expect([response.statusCode, error.code]).toEqual([
            expected,
            expected === 403 ? 'FORBIDDEN' : 'UNAUTHENTICATED',
          ]);
          const others = ['credit', 'refund'].filter((n) => n !== name);
          for (const other of others) expect(response.body).not.toContain(other);
        }
      }
      expect(await queue.receive({ max: 10, visibilityTimeoutMs: 1 })).toEqual([]);
      expect(await store.load('account/alice')).toBeUndefined();
    },
  );

  it('scopes keys and outcome reads by the SigV4 principal: two principals sharing a key send two messages, and neither reads the other’s outcome', async () => {
    // An ingress of an app whose `deposit` is public to every caller, principals included.
    const open = ingressHandler({ actors: [OpenAccount], store, queue, askTimeoutMs: 10_000 });
    const body = {
      to: 'account/p',
      name: 'deposit',
      payload: { amount: 5 },
      idempotencyKey: 'shared',
    };
    const ops = { principal: 'arn:aws:iam::123456789012:role/ops' };
    const audit = { principal: 'arn:aws:iam::123456789012:role/audit' };
    const first = JSON.parse((await open(httpEvent('/send', body, ops))).body);
    const second = JSON.parse((await open(httpEvent('/send', body, audit))).body);
    expect(first.messageId).not.toBe(second.messageId);
    // The principal never appears in clear in the id.
    expect(first.messageId).toMatch(/^ingress:\["account\/p","shared","[A-Za-z0-9_-]{22}"\]$/);

    const source = new LocalSqsEventSource({
      client: sqs,
      queueUrl,
      handler: workerHandler({ actors: [OpenAccount], store, queue, logger: silentLogger }),
      waitSeconds: 0,
    });
    const outcome = (id: string, as: object) =>
      open(httpEvent(`/outcome/${encodeURIComponent(id)}`, undefined, { method: 'GET', ...as }));
    await until(async () => {
      await source.pollOnce();
      return (await outcome(second.messageId, audit)).statusCode === 200;
    }, 'both deposits');
    // Both applied: two messages, not one shared.
    expect((await store.load('account/p'))?.state).toMatchObject({ balance: 10 });
    expect(JSON.parse((await outcome(first.messageId, ops)).body)).toEqual({
      outcome: { ok: true, value: 5 },
    });
    // Neither principal, nor an anonymous caller, reads the other's outcome.
    expect((await outcome(first.messageId, audit)).statusCode).toBe(404);
    expect((await outcome(second.messageId, ops)).statusCode).toBe(404);
    expect((await outcome(first.messageId, {})).statusCode).toBe(404);
  });

  it('answers a malformed %-escape in an outcome id with 400, not a retryable 503', async () => {
    const response = await ingress(
      httpEvent('/outcome/%E0%A4%A', undefined, { method: 'GET', token: tokens.alice }),
    );
    expect(response.statusCode).toBe(400);
    expect(JSON.parse(response.body).error.code).toBe('INVALID_ARGUMENT');
  });
});
