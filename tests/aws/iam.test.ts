/**
 * The IAM actions each part declares (`BATON_IAM`) are exactly the ones it calls: every part
 * runs against DynamoDB Local and ElasticMQ through SDK clients that record each call as the
 * IAM action and resource it needs (a transaction: the action of each item it writes).
 */
import { randomUUID } from 'node:crypto';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SQSClient } from '@aws-sdk/client-sqs';
import {
  BATON_IAM,
  createAwsClients,
  createFifoQueue,
  createTable,
  DynamoStore,
  SqsQueue,
} from '@baton/aws';
import {
  actor,
  Client,
  createEngine,
  drainOutbox,
  INGRESS,
  RetryableError,
  redriveDeadLetter,
  runTurn,
  Sweeper,
  silentLogger,
  Worker,
} from '@baton/core';
import { describe, expect, inject, it } from 'vitest';
import { z } from 'zod';

const attempts = new Map<string, number>();
let cured = false;

const Node = actor({
  name: 'node',
  state: z.object({ n: z.number() }),
  initial: () => ({ n: 0 }),
  handlers: {
    relay: {
      payload: z.object({ to: z.array(z.string()) }),
      handle: (ctx, { to }) => {
        for (const key of to) ctx.send(Node.ref(key), 'bump', {});
      },
    },
    bump: {
      payload: z.object({}),
      handle: (ctx) => ++ctx.state.n,
    },
    flaky: {
      payload: z.object({}),
      handle: (ctx) => {
        const attempt = (attempts.get(ctx.message.id) ?? 0) + 1;
        attempts.set(ctx.message.id, attempt);
        if (attempt === 1) throw new RetryableError('fails once', { retryAfterMs: 0 });
      },
    },
    poison: {
      payload: z.object({}),
      handle: () => {
        if (!cured) throw new Error('fails until cured');
      },
    },
  },
});

/** `<resource> <action>` for each IAM action a command needs. */
function actionsOf(command: string, input: Record<string, unknown>): string[] {
  const table = input.IndexName === 'outbox' ? 'outboxIndex' : 'table';
  if (command === 'TransactWriteItemsCommand') {
    const items = input.TransactItems as Record<string, unknown>[];
    const verbs = { Put: 'PutItem', Delete: 'DeleteItem', Update: 'UpdateItem' } as const;
    return items.flatMap((item) =>
      Object.entries(verbs).flatMap(([key, verb]) =>
        key in item ? [`table dynamodb:${verb}`] : [],
      ),
    );
  }
  const dynamodb = /^(GetItem|Query|BatchGetItem|BatchWriteItem|PutItem|DeleteItem|Scan)Command$/;
  const sqs: Record<string, string> = {
    SendMessageCommand: 'SendMessage',
    SendMessageBatchCommand: 'SendMessage',
    ReceiveMessageCommand: 'ReceiveMessage',
    DeleteMessageBatchCommand: 'DeleteMessage',
    ChangeMessageVisibilityBatchCommand: 'ChangeMessageVisibility',
    GetQueueAttributesCommand: 'GetQueueAttributes',
  };
  const match = dynamodb.exec(command);
  if (match) return [`${table} dynamodb:${match[1]}`];
  if (sqs[command]) return [`inbox sqs:${sqs[command]}`];
  throw new Error(`no IAM action known for ${command}: add it to this test`);
}

/** Every call `client` makes, recorded into `calls` as the IAM actions it needs. */
function record(client: DynamoDBClient | SQSClient, calls: Set<string>): void {
  (client as DynamoDBClient).middlewareStack.add(
    (next, context) => async (args) => {
      const input = args.input as Record<string, unknown>;
      for (const action of actionsOf(context.commandName ?? '', input)) calls.add(action);
      return next(args);
    },
    { step: 'initialize', name: 'recordIamActions' },
  );
}

/** What `BATON_IAM[part]` declares, as `<resource> <action>`. */
function declared(part: keyof typeof BATON_IAM): Set<string> {
  return new Set(
    BATON_IAM[part].flatMap(({ actions, resources }) =>
      resources.flatMap((resource) => actions.map((action) => `${resource} ${action}`)),
    ),
  );
}

describe('the IAM actions each part declares', () => {
  it('are exactly those the worker, the ingress, the drain and the sweeper call', async () => {
    const endpoints = {
      dynamodbEndpoint: inject('dynamodbEndpoint'),
      sqsEndpoint: inject('sqsEndpoint'),
    };
    const setup = createAwsClients(endpoints);
    const name = `iam-${randomUUID().slice(0, 8)}`;
    await createTable(setup.dynamodb, name);
    const { queueUrl } = await createFifoQueue(setup.sqs, name, { visibilityTimeoutMs: 1_000 });
    const ports = (dynamodb: DynamoDBClient, sqs: SQSClient) => ({
      store: new DynamoStore({ client: dynamodb, tableName: name }),
      queue: new SqsQueue({ client: sqs, queueUrl }),
    });
    const part = () => {
      const calls = new Set<string>();
      // Clients of its own (createAwsClients shares one pair per endpoint).
      const dynamodb = new DynamoDBClient({ endpoint: endpoints.dynamodbEndpoint });
      const sqs = new SQSClient({ endpoint: endpoints.sqsEndpoint });
      record(dynamodb, calls);
      record(sqs, calls);
      return { calls, ...ports(dynamodb, sqs) };
    };
    const operator = ports(setup.dynamodb, setup.sqs);
    const actors = [Node];
    const [ingress, worker, drain, sweeper] = [part(), part(), part(), part()];
    const workerEngine = createEngine({
      actors,
      ...worker,
      logger: silentLogger,
      visibilityTimeoutMs: 1_000,
      maxAttempts: 2,
      recordPeers: 1, // so marks move out and are read back
    });
    const work = new Worker(workerEngine);
    const runWorker = async () => {
      for (let idle = 0; idle < 3; ) {
        if ((await work.poll()) > 0) idle = 0;
        else {
          const { visible, inFlight } = await operator.queue.approximateCounts();
          if (visible + inFlight === 0) idle++;
          else await new Promise((resolve) => setTimeout(resolve, 200));
        }
      }
    };

    // Ingress: sends, an ask, an outcome.
    const client = new Client({ actors, ...ingress });
    await client.send(Node.ref('hub'), 'relay', { to: ['a', 'b'] }, { idempotencyKey: 'r1' });
    await client.send(Node.ref('x'), 'relay', { to: ['a'] });
    await client.send(Node.ref('f'), 'flaky', {});
    const { messageId } = await client.send(Node.ref('p'), 'poison', {});
    const asked = client.ask(Node.ref('hub'), 'relay', { to: ['a'] }, { timeoutMs: 20_000 });
    await runWorker();
    await asked;
    expect(await client.outcome(messageId)).toMatchObject({ ok: false });

    // The operator redrives the dead letter once it is cured; the worker applies it.
    cured = true;
    await redriveDeadLetter(operator.store, operator.queue, 'node/p', messageId);
    await runWorker();

    // Outboxes left undrained, for the drain handler's and the sweeper's code.
    const committing = createEngine({ actors, ...operator, logger: silentLogger });
    const relay = (key: string) => ({
      envelope: {
        id: `ingress:${key}`,
        from: INGRESS,
        seq: 0,
        to: `node/${key}`,
        name: 'relay',
        payload: { to: ['a'] },
        sentAt: 0,
      },
      queueSeq: '1',
    });
    await runTurn(committing, 'node/y', [relay('y')]);
    await runTurn(committing, 'node/z', [relay('z')]);
    expect(await drainOutbox(drain.store, drain.queue, 'node/y')).toBe(1);
    const swept = await new Sweeper(createEngine({ actors, ...sweeper, logger: silentLogger }), {
      minAgeMs: 0,
    }).sweep();
    expect(swept.sent).toBe(1);
    await runWorker();
    expect((await operator.store.load('node/a'))?.state).toEqual({ n: 5 });

    expect([...worker.calls].sort()).toEqual([...declared('worker')].sort());
    expect([...ingress.calls].sort()).toEqual([...declared('ingress')].sort());
    expect([...drain.calls].sort()).toEqual([...declared('drain')].sort());
    expect([...sweeper.calls].sort()).toEqual([...declared('sweeper')].sort());
  }, 120_000);
});
