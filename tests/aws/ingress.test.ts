import { randomUUID } from 'node:crypto';
import { createServer } from 'node:net';
import { DynamoDBClient, ScanCommand } from '@aws-sdk/client-dynamodb';
import { createAwsClients, createFifoQueue, createTable, DynamoStore, SqsQueue } from '@baton/aws';
import { ingressHandler, workerHandler } from '@baton/aws/lambda';
import { LocalSqsEventSource } from '@baton/aws/local';
import { defineApp, jsonLogger, silentLogger, workflow } from '@baton/core';
import { ingressMessageId } from '@baton/core/adapter';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import * as z from 'zod';
import { Account } from './fixtures/openAccount.ts';

function request(path: string, body: unknown, method = 'POST'): APIGatewayProxyEventV2 {
  return {
    rawPath: path,
    body: typeof body === 'string' ? body : JSON.stringify(body),
    isBase64Encoded: false,
    // API Gateway and function URLs give headers in lower case.
    headers: { 'content-type': 'application/json' },
    requestContext: { http: { method } },
  } as unknown as APIGatewayProxyEventV2;
}

describe('the HTTP ingress on DynamoDB Local and ElasticMQ', () => {
  const { dynamodb, sqs } = createAwsClients({
    dynamodbEndpoint: inject('dynamodbEndpoint'),
    sqsEndpoint: inject('sqsEndpoint'),
  });
  const tableName = `ingress-${randomUUID().slice(0, 8)}`;
  let queue: SqsQueue;
  let queueUrl: string;
  let handle: ReturnType<typeof ingressHandler>;
  let store: DynamoStore;

  beforeAll(async () => {
    await createTable(dynamodb, tableName);
    ({ queueUrl } = await createFifoQueue(sqs, tableName, { visibilityTimeoutMs: 2000 }));
    store = new DynamoStore({ client: dynamodb, tableName });
    queue = new SqsQueue({ client: sqs, queueUrl });
    handle = ingressHandler({ actors: [Account], store, queue, askTimeoutMs: 10_000 });
  });

  /** Nothing in the queue and nothing in the table. */
  async function expectNothingWritten() {
    expect(await queue.receive({ max: 10, visibilityTimeoutMs: 1000 })).toEqual([]);
    const { Count } = await dynamodb.send(
      new ScanCommand({ TableName: tableName, Select: 'COUNT' }),
    );
    expect(Count).toBe(0);
  }

  it.each([
    [
      'malformed JSON',
      '/send',
      '{"to": "account/alice", ',
      400,
      'INVALID_ARGUMENT',
      /not valid JSON/,
    ],
    ['a body that is not an object', '/send', '[1, 2]', 400, 'INVALID_ARGUMENT', /JSON object/],
    [
      'a missing "to"',
      '/send',
      { name: 'deposit', payload: { amount: 1 }, idempotencyKey: 'k' },
      400,
      'INVALID_ARGUMENT',
      /"to" must be an actor id/,
    ],
    [
      'a wrong payload',
      '/send',
      { to: 'account/alice', name: 'deposit', payload: { amount: 'ten' }, idempotencyKey: 'k' },
      400,
      'INVALID_PAYLOAD',
      /payload\.amount/,
    ],
    [
      'an unknown actor type',
      '/send',
      { to: 'wallet/alice', name: 'deposit', payload: {}, idempotencyKey: 'k' },
      403,
      'FORBIDDEN',
      /no actor type "wallet" takes messages from clients \(types that do: account\)/,
    ],
    [
      'an unknown message',
      '/send',
      { to: 'account/alice', name: 'steal', payload: {}, idempotencyKey: 'k' },
      403,
      'FORBIDDEN',
      /no public handler "steal"/,
    ],
    [
      'a send without an idempotency key',
      '/send',
      { to: 'account/alice', name: 'deposit', payload: { amount: 1 } },
      400,
      'INVALID_ARGUMENT',
      /idempotencyKey/,
    ],
    [
      'an oversized body',
      '/send',
      {
        to: 'account/alice',
        name: 'deposit',
        payload: { amount: 1, pad: 'x'.repeat(300_000) },
        idempotencyKey: 'k',
      },
      413,
      'MESSAGE_TOO_LARGE',
      /limit is 256000/,
    ],
    ['an unknown route', '/steal', {}, 404, 'NOT_FOUND', /no route/],
  ])('answers %s and writes nothing', async (_what, path, body, status, code, message) => {
    const response = await handle(request(path, body));
    expect(response.statusCode).toBe(status);
    const { error } = JSON.parse(response.body);
    expect(error.code).toBe(code);
    expect(error.message).toMatch(message);
    await expectNothingWritten();
  });

  it.each([
    [
      'as text/plain, as a page on another site may have a browser send it',
      'text/plain;charset=UTF-8',
    ],
    ['as a form', 'application/x-www-form-urlencoded'],
    ['without a content type', undefined],
  ])(
    'refuses a JSON body sent %s, and writes nothing: only application/json makes a browser ask first',
    async (_how, type) => {
      const event = request('/send', {
        to: 'account/alice',
        name: 'deposit',
        payload: { amount: 1 },
        idempotencyKey: 'csrf',
      });
      const response = await handle({ ...event, headers: type ? { 'content-type': type } : {} });
      expect(response.statusCode).toBe(400);
      const { error } = JSON.parse(response.body);
      expect(error.code).toBe('INVALID_ARGUMENT');
      expect(error.message).toMatch(
        /^the body must be JSON sent with content-type: application\/json/,
      );
      await expectNothingWritten();
    },
  );

  it('accepts a send, answers an ask with the reply, and reports a rejection as 422', async () => {
    const worker = workerHandler({ actors: [Account], store, queue, logger: silentLogger });
    const send = await handle(
      request('/send', {
        to: 'account/bob',
        name: 'deposit',
        payload: { amount: 7 },
        idempotencyKey: 'dep-bob',
      }),
    );
    expect(send.statusCode).toBe(202);
    const sent = JSON.parse(send.body);
    expect(sent).toEqual({
      messageId: ingressMessageId('account/bob', 'dep-bob'),
      sentAt: expect.any(Number),
    });

    // A worker turn runs while the ask waits.
    const ask = handle(
      request('/ask', { to: 'account/bob', name: 'withdraw', payload: { amount: 100 } }),
    );
    const source = new LocalSqsEventSource({
      client: sqs,
      queueUrl,
      handler: worker,
      waitSeconds: 0,
    });
    const pump = async () => {
      for (let i = 0; i < 20; i++) {
        await source.pollOnce();
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    };
    const [answer] = await Promise.all([ask, pump()]);
    expect(answer.statusCode).toBe(422);
    expect(JSON.parse(answer.body).error).toMatchObject({
      code: 'REJECTED',
      message: expect.stringMatching(/insufficient funds/),
    });

    const outcome = await handle(
      request(
        `/outcome/${encodeURIComponent(ingressMessageId('account/bob', 'dep-bob'))}`,
        undefined,
        'GET',
      ),
    );
    expect(outcome.statusCode).toBe(200);
    expect(JSON.parse(outcome.body)).toEqual({ outcome: { ok: true, value: 7 } });

    // With the send's sentAt (which spares the read older pages) it is found too; a malformed
    // one is refused.
    const outcomeAt = (sentAt: string) =>
      handle({
        ...request('/outcome', undefined, 'GET'),
        rawQueryString: `to=account/bob&idempotencyKey=dep-bob&sentAt=${sentAt}`,
      });
    const found = await outcomeAt(String(sent.sentAt));
    expect(JSON.parse(found.body)).toEqual({ outcome: { ok: true, value: 7 } });
    const malformed = await outcomeAt('yesterday');
    expect(malformed.statusCode).toBe(400);
    expect(JSON.parse(malformed.body).error.message).toMatch(
      /sentAt must be the sentAt a send returned/,
    );
  });

  it('answers 409 IDEMPOTENCY_KEY_REUSED to the second of two concurrent sends with one key and different payloads, and GET /outcome reads only the first', async () => {
    const deposit = (amount: number) =>
      request('/send', {
        to: 'account/carol',
        name: 'deposit',
        payload: { amount },
        idempotencyKey: 'dep-carol',
      });
    const answers = await Promise.all([handle(deposit(5)), handle(deposit(9))]);
    expect(answers.map((answer) => answer.statusCode).sort()).toEqual([202, 409]);
    const accepted = answers.findIndex((answer) => answer.statusCode === 202);
    const amount = [5, 9][accepted]!;
    expect(JSON.parse(answers[1 - accepted]!.body).error).toMatchObject({
      code: 'IDEMPOTENCY_KEY_REUSED',
      message: expect.stringMatching(/use a fresh key for a new message/),
    });
    // The accepted one again is a retry.
    expect((await handle(deposit(amount))).statusCode).toBe(202);

    const worker = workerHandler({ actors: [Account], store, queue, logger: silentLogger });
    const source = new LocalSqsEventSource({
      client: sqs,
      queueUrl,
      handler: worker,
      waitSeconds: 0,
    });
    const messageId = ingressMessageId('account/carol', 'dep-carol');
    let outcome = await handle(
      request(`/outcome/${encodeURIComponent(messageId)}`, undefined, 'GET'),
    );
    for (let i = 0; i < 50 && outcome.statusCode === 404; i++) {
      await source.pollOnce();
      outcome = await handle(
        request(`/outcome/${encodeURIComponent(messageId)}`, undefined, 'GET'),
      );
    }
    expect(JSON.parse(outcome.body)).toEqual({ outcome: { ok: true, value: amount } });
    expect((await store.load('account/carol'))?.state).toMatchObject({ balance: amount });
    expect((await handle(deposit(14 - amount))).statusCode).toBe(409);
  });
});

describe('the workflow routes of the HTTP ingress on DynamoDB Local and ElasticMQ', () => {
  const { dynamodb, sqs } = createAwsClients({
    dynamodbEndpoint: inject('dynamodbEndpoint'),
    sqsEndpoint: inject('sqsEndpoint'),
  });
  const tableName = `ingress-wf-${randomUUID().slice(0, 8)}`;
  const Hello = workflow({
    name: 'hello',
    input: z.object({ name: z.string() }),
    public: true,
    run: async (_ctx, { name }) => `hello, ${name}`,
  });
  const { actors } = defineApp({ workflows: [Hello] });

  it('start an instance, and read it as not started until a worker ran it, then its output', async () => {
    await createTable(dynamodb, tableName);
    const { queueUrl } = await createFifoQueue(sqs, tableName, { visibilityTimeoutMs: 2000 });
    const store = new DynamoStore({ client: dynamodb, tableName });
    const queue = new SqsQueue({ client: sqs, queueUrl });
    const handle = ingressHandler({ actors, store, queue, logger: silentLogger });

    const started = await handle(
      request('/workflows/hello/start', { id: 'h-1', input: { name: 'ann' } }),
    );
    expect(started.statusCode).toBe(202);
    expect(JSON.parse(started.body)).toMatchObject({ id: 'h-1', messageId: expect.any(String) });
    const read = () => handle(request('/workflows/hello/h-1', undefined, 'GET'));
    const before = await read();
    expect(before.statusCode).toBe(404);
    expect(JSON.parse(before.body).error.message).toMatch(/never started/);

    const worker = workerHandler({ actors, store, queue, logger: silentLogger });
    const source = new LocalSqsEventSource({
      client: sqs,
      queueUrl,
      handler: worker,
      waitSeconds: 0,
    });
    let after = await read();
    for (let i = 0; i < 20 && after.statusCode !== 200; i++) {
      await source.pollOnce();
      after = await read();
    }
    expect(after.statusCode).toBe(200);
    expect(JSON.parse(after.body)).toMatchObject({
      id: 'h-1',
      status: 'completed',
      output: 'hello, ann',
    });
  });
});

describe('the HTTP ingress when a store or a queue behind it fails', () => {
  const sqsEndpoint = inject('sqsEndpoint');
  const { dynamodb, sqs } = createAwsClients({
    dynamodbEndpoint: inject('dynamodbEndpoint'),
    sqsEndpoint,
  });
  const tableName = `ingress-down-${randomUUID().slice(0, 8)}`;
  // An inbox that does not exist (deleted, or a stage misconfigured), by a name an outsider
  // has no business knowing: an outage or a wrong IAM policy fails its calls alike.
  const queueName = `internal-billing-${randomUUID().slice(0, 8)}.fifo`;
  const missingQueue = new SqsQueue({
    client: sqs,
    queueUrl: `${sqsEndpoint}/000000000000/${queueName}`,
  });
  const deposit = (idempotencyKey: string) =>
    request('/send', {
      to: 'account/alice',
      name: 'deposit',
      payload: { amount: 1 },
      idempotencyKey,
    });

  beforeAll(() => createTable(dynamodb, tableName));

  it('answers 503 with the code alone, and logs the SDK text, for a queue that fails', async () => {
    const lines: string[] = [];
    const store = new DynamoStore({ client: dynamodb, tableName });
    const logger = jsonLogger({ write: (line) => lines.push(line) });
    const handle = ingressHandler({ actors: [Account], store, queue: missingQueue, logger });
    const response = await handle(deposit('k1'));
    expect(response.statusCode).toBe(503);
    const { error } = JSON.parse(response.body);
    expect(error).toMatchObject({
      code: 'UNAVAILABLE',
      message: expect.stringMatching(/retry later/),
    });
    expect(JSON.stringify(error)).not.toMatch(/SQS|SendMessage|exist|billing|127\.0\.0\.1/i);
    // The operator's log has what the caller is not told.
    expect(lines.join('\n')).toContain('SQS SendMessage failed: QueueDoesNotExist');
  });

  it('answers 503 with the code alone for a store it cannot reach', async () => {
    // A loopback port nothing answers on: a store endpoint that is down.
    const closed = await new Promise<number>((resolve) => {
      const probe = createServer().listen(0, '127.0.0.1', () => {
        const { port } = probe.address() as { port: number };
        probe.close(() => resolve(port));
      });
    });
    const down = new DynamoDBClient({
      endpoint: `http://127.0.0.1:${closed}`,
      region: 'us-east-1',
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
      maxAttempts: 1,
    });
    const store = new DynamoStore({ client: down, tableName });
    const handle = ingressHandler({
      actors: [Account],
      store,
      queue: missingQueue,
      logger: silentLogger,
    });
    const response = await handle(deposit('k2'));
    expect(response.statusCode).toBe(503);
    const text = JSON.stringify(JSON.parse(response.body).error);
    expect(text).toContain('UNAVAILABLE');
    expect(text).not.toContain(String(closed));
    expect(text).not.toMatch(/ECONNREFUSED|DynamoDB/);
  });
});
