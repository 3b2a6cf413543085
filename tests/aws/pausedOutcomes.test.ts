/**
 * A client's message parked at a paused actor, on DynamoDB: the page holds the outcome held for
 * it (ACTOR_PAUSED) and the resume keeps the message's own apart, as a redrive does; what reads
 * the actor's recent outcomes (`baton inspect`, the dev inspector's history) takes the own one.
 */
import { randomUUID } from 'node:crypto';
import { createAwsClients, createTable, DynamoStore } from '@baton/aws';
import { silentLogger } from '@baton/core';
import { Client } from '@baton/core/client';
import { createEngine, pauseActor, resumeActor, Worker } from '@baton/core/engine';
import { createEmbeddedBackend } from '@baton/embedded';
import { Ledger } from '@baton/testing/conformance';
import { expect, inject, it } from 'vitest';
import { recentOutcomes } from '../../packages/cli/src/actorHistory.ts';

it('reads the outcome of a message parked, then applied on resume, as applied, whatever pages closed meanwhile', async () => {
  const { dynamodb } = createAwsClients({ dynamodbEndpoint: inject('dynamodbEndpoint') });
  const tableName = `paused-${randomUUID().slice(0, 8)}`;
  await createTable(dynamodb, tableName);
  const store = new DynamoStore({ client: dynamodb, tableName });
  const { queue } = createEmbeddedBackend();
  const engine = createEngine({ actors: [Ledger], store, queue, logger: silentLogger });
  const worker = new Worker(engine);
  const client = new Client({ actors: [Ledger], store, queue }).asSystem();
  const drain = async () => {
    while ((await worker.poll()) > 0) {}
  };
  const ref = Ledger.ref('t');
  await client.send(ref, 'add', { entry: 'before', amount: 1 });
  await drain();
  await pauseActor(store, queue, ref.id, { by: 'test' });
  // Enough parked messages that the outcomes held for them fill and close pages.
  for (let i = 0; i < 30; i++) {
    await client.send(ref, 'add', { entry: `p${i}-${'x'.repeat(60)}`, amount: 1 });
  }
  await drain();
  expect((await store.load(ref.id))?.parked).toBe(30);
  await resumeActor(store, queue, ref.id, { by: 'test' });
  await drain();

  const state = (await store.load(ref.id))?.state as { entries: string[] };
  expect(state.entries).toHaveLength(31);
  const recent = await recentOutcomes(store, (await store.load(ref.id))!);
  expect(recent.length).toBeGreaterThan(0);
  expect(recent.filter((o) => !o.outcome.ok)).toEqual([]);
}, 60_000);
