/**
 * An app deployed with `outboxShards: 32` keeps its dead letters under 32 index keys. `baton`
 * named the resources outright (`--table`, `--queue-url`, as the drills run it) counts every one
 * of them: with `--outbox-shards 32`, and without it too (the count unknown, it reads every key
 * the index may have), in `status` and in `dead-letters list`.
 */
import { createAwsClients, DynamoStore } from '@baton/aws';
import { workerHandler } from '@baton/aws/lambda';
import { LocalSqsEventSource } from '@baton/aws/local';
import { silentLogger } from '@baton/core';
import { Client } from '@baton/core/client';
import { beforeEach, expect, inject, it } from 'vitest';
import { createOpsDeployment, flagsOf, pumpUntil, runBaton } from './fixtures/opsDeployment.ts';
import { faults, Tally } from './fixtures/tallyApp.ts';

beforeEach(() => {
  faults.poisoned = true;
});

it('counts every dead letter of an app with outboxShards, with --outbox-shards and without', async () => {
  const deployment = await createOpsDeployment('shards');
  const { dynamodb, sqs } = createAwsClients({
    dynamodbEndpoint: inject('dynamodbEndpoint'),
    sqsEndpoint: inject('sqsEndpoint'),
  });
  // The deployed functions run with BATON_OUTBOX_SHARDS=32 (BatonApp's outboxShards: 32).
  const store = new DynamoStore({
    client: dynamodb,
    tableName: deployment.options.table!,
    outboxShards: 32,
  });
  const worker = new LocalSqsEventSource({
    client: sqs,
    queueUrl: deployment.options['queue-url']!,
    handler: workerHandler({
      actors: [Tally],
      store,
      queue: deployment.queue,
      logger: silentLogger,
    }),
    visibilityTimeoutMs: 1000,
    waitSeconds: 0,
  });
  const client = new Client({ actors: [Tally], store, queue: deployment.queue }).asSystem();
  const actors = Array.from({ length: 16 }, (_, i) => `a${i}`);
  for (const key of actors) await client.send(Tally.ref(key), 'add', { entry: 'poison' });
  await pumpUntil(
    deployment.queue,
    worker,
    async () => (await store.listDeadLetters()).length === actors.length,
  );
  // Some of them under keys 8 to 31, which a reader of the default 8 keys never sees.
  const defaultReader = new DynamoStore({ client: dynamodb, tableName: deployment.options.table! });
  expect((await defaultReader.listDeadLetters()).length).toBeLessThan(actors.length);

  for (const given of [[], ['--outbox-shards', '32']]) {
    const baton = (...argv: string[]) =>
      runBaton([...argv, ...flagsOf(deployment.options), ...given, '--json']);
    const status = await baton('status');
    const list = await baton('dead-letters', 'list');
    expect({ given, status: status.json().deadLetters, list: list.json().total }).toEqual({
      given,
      status: actors.length,
      list: actors.length,
    });
  }
}, 120_000);
