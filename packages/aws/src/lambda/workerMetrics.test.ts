/**
 * The deployed worker publishes each turn's metrics without app code: built from the
 * environment as the construct's entry builds it, on DynamoDB Local and ElasticMQ, it writes
 * CloudWatch EMF lines (Powertools Metrics) in the namespace and service the environment
 * names; `BATON_METRICS=off` writes none.
 */
import { randomUUID } from 'node:crypto';
import { actor, defineApp } from '@baton/core';
import { Client } from '@baton/core/client';
import { afterEach, describe, expect, inject, it, vi } from 'vitest';
import * as z from 'zod';
import { createAwsClients } from '../createAwsClients.ts';
import { createTable } from '../dynamodb/createTable.ts';
import { DynamoStore } from '../dynamodb/DynamoStore.ts';
import { DynamoTurnStore } from '../dynamodb/DynamoTurnStore.ts';
import { capturedStdout } from '../fixtures/capturedStdout.ts';
import { restoreEnvironment } from '../fixtures/environment.ts';
import { LocalSqsEventSource } from '../local/LocalSqsEventSource.ts';
import { createFifoQueue } from '../sqs/createFifoQueue.ts';
import { SqsQueue } from '../sqs/SqsQueue.ts';
import { SqsTurnQueue } from '../sqs/SqsTurnQueue.ts';
import { workerFromEnvironment } from './fromEnvironment.ts';
import { workerHandler } from './workerHandler.ts';
import { workerMetricsFromEnvironment } from './workerMetrics.ts';

const Gauge = actor({
  name: 'gauge',
  state: z.object({ n: z.number() }),
  initial: () => ({ n: 0 }),
  handlers: {
    bump: {
      public: true,
      payload: z.object({}),
      handle: (ctx) => {
        ctx.state.n += 1;
      },
    },
  },
});
const app = defineApp({ actors: [Gauge] });

describe("the deployed worker's turn metrics", () => {
  const dynamodbEndpoint = inject('dynamodbEndpoint');
  const sqsEndpoint = inject('sqsEndpoint');
  const { dynamodb, sqs } = createAwsClients({ dynamodbEndpoint, sqsEndpoint });

  afterEach(() => {
    vi.restoreAllMocks();
    restoreEnvironment();
  });

  /**
   * Runs two messages through the worker `build` makes (as the environment says, by default);
   * returns stdout's EMF lines.
   */
  async function emfOf(
    env: Record<string, string>,
    build: () => ReturnType<typeof workerHandler> = () => workerFromEnvironment(app),
  ) {
    const name = `metrics-${randomUUID().slice(0, 8)}`;
    await createTable(dynamodb, name);
    const { queueUrl } = await createFifoQueue(sqs, name, { visibilityTimeoutMs: 2000 });
    Object.assign(process.env, {
      BATON_TABLE: name,
      BATON_INBOX_URL: queueUrl,
      BATON_DYNAMODB_ENDPOINT: dynamodbEndpoint,
      BATON_SQS_ENDPOINT: sqsEndpoint,
      ...env,
    });
    const store = new DynamoStore({ client: dynamodb, tableName: name });
    const lines: string[] = [];
    const handler = build();
    const source = new LocalSqsEventSource({
      client: sqs,
      queueUrl,
      handler: async (event) => {
        const written = await capturedStdout(() => handler(event));
        lines.push(...written.lines);
        return written.result;
      },
      visibilityTimeoutMs: 2000,
      waitSeconds: 0,
    });
    const queue = new SqsQueue({ client: sqs, queueUrl });
    const client = new Client({ actors: [Gauge], store, queue }).asSystem();
    await client.send(Gauge.ref('g'), 'bump', {});
    await client.send(Gauge.ref('g'), 'bump', {});
    const count = async () =>
      ((await store.load('gauge/g'))?.state as { n: number } | undefined)?.n;
    for (let i = 0; i < 60 && (await count()) !== 2; i++) {
      if ((await source.pollOnce()) === 0) await new Promise((r) => setTimeout(r, 100));
    }
    expect(await count()).toBe(2);
    return lines.filter((line) => line.includes('"_aws"')).map((line) => JSON.parse(line));
  }

  it('are on by default: each turn is an EMF line in the namespace and service the environment names', async () => {
    const emf = await emfOf({
      POWERTOOLS_METRICS_NAMESPACE: 'Baton',
      POWERTOOLS_SERVICE_NAME: 'Bank/App',
    });
    expect(emf.length).toBeGreaterThan(0);
    const [directive] = emf[0]._aws.CloudWatchMetrics;
    expect(directive.Namespace).toBe('Baton');
    expect(directive.Dimensions).toEqual([['service']]);
    expect(emf.every((line) => line.service === 'Bank/App')).toBe(true);
    const applied = emf.flatMap((line) => [line.MessagesApplied ?? []].flat());
    expect(applied.reduce((n: number, v: number) => n + v, 0)).toBe(2);
    expect(directive.Metrics.map((m: { Name: string }) => m.Name)).toEqual(
      expect.arrayContaining(['TurnDuration', 'BatchSize', 'MessagesDeadLettered', 'TurnErrors']),
    );
  });

  it("go out beside an onTurn listener of the app's own, which is told of each turn too", async () => {
    const told: string[] = [];
    const emf = await emfOf({}, () =>
      workerHandler({
        actors: [Gauge],
        store: new DynamoTurnStore({ client: dynamodb, tableName: process.env.BATON_TABLE! }),
        queue: new SqsTurnQueue({ client: sqs, queueUrl: process.env.BATON_INBOX_URL! }),
        metrics: workerMetricsFromEnvironment()!,
        onTurn: (turn) => told.push(`${turn.actorId} ${turn.applied}`),
      }),
    );
    const applied = emf.flatMap((line) => [line.MessagesApplied ?? []].flat());
    expect(applied.reduce((n: number, v: number) => n + v, 0)).toBe(2);
    expect(told.join(',')).toMatch(/^gauge\/g (1,gauge\/g 1|2)$/);
  });

  it('are off with BATON_METRICS=off: no EMF line, the messages still applied', async () => {
    expect(await emfOf({ BATON_METRICS: 'off' })).toEqual([]);
  });

  it('default to the Baton namespace, and take off or false in any case', () => {
    expect(workerMetricsFromEnvironment({})).toBeDefined();
    expect(workerMetricsFromEnvironment({ BATON_METRICS: 'OFF' })).toBeUndefined();
    expect(workerMetricsFromEnvironment({ BATON_METRICS: 'false' })).toBeUndefined();
    expect(workerMetricsFromEnvironment({ BATON_METRICS: 'on' })).toBeDefined();
  });
});
