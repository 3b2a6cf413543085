/**
 * The change feed on DynamoDB Local's stream: commits made with DynamoStore reach it, every
 * version of every actor once and in order; outcomes reach watchOutcomes.
 */
import { randomUUID } from 'node:crypto';
import { CreateTableCommand, DeleteTableCommand } from '@aws-sdk/client-dynamodb';
import type { ActorRecord, IdempotencyRecord } from '@baton/core/adapter';
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { createTable } from '../dynamodb/createTable.ts';
import { DynamoStore } from '../dynamodb/DynamoStore.ts';
import { tableDefinition } from '../dynamodb/tableLayout.ts';
import { createStreamClients } from './createStreamClients.ts';
import { DynamoStreamFeed } from './DynamoStreamFeed.ts';

const clients = createStreamClients({ dynamodbEndpoint: inject('dynamodbEndpoint') });
const tableName = `feed-${randomUUID().slice(0, 8)}`;
const store = new DynamoStore({ client: clients.dynamodb, tableName });
const feeds: DynamoStreamFeed[] = [];

function startFeed(): Promise<DynamoStreamFeed> {
  const feed = new DynamoStreamFeed({ clients, tableName, pollMs: 50 });
  feeds.push(feed);
  return feed.start().then(() => feed);
}

/** Commits version `ver` of `id` (the store checks ver - 1 is the stored one). */
function commit(id: string, ver: number, idempotency: IdempotencyRecord[] = []) {
  const record: ActorRecord = {
    id,
    ver,
    state: { n: ver },
    inboxOffset: String(ver),
    marks: {},
    sentSeq: 0,
  };
  return store.commit({ expectedVer: ver - 1, record, outbox: [], idempotency });
}

beforeAll(() => createTable(clients.dynamodb, tableName));

afterAll(async () => {
  await Promise.all(feeds.map((feed) => feed.stop()));
  await clients.dynamodb.send(new DeleteTableCommand({ TableName: tableName }));
});

describe('DynamoStreamFeed', () => {
  it('delivers every version of every actor once, in order per actor', async () => {
    const feed = await startFeed();
    const seen = new Map<string, number[]>();
    const states: unknown[] = [];
    feed.subscribe((record) => {
      seen.set(record.id, [...(seen.get(record.id) ?? []), record.ver]);
      states.push(record.state);
    });
    const actors = ['a', 'b', 'c'].map((k) => `counter/${k}-${randomUUID().slice(0, 4)}`);
    for (let ver = 1; ver <= 20; ver++) {
      await Promise.all(actors.map((id) => commit(id, ver)));
    }
    const all = Array.from({ length: 20 }, (_, i) => i + 1);
    await vi.waitFor(
      () => expect(actors.map((id) => seen.get(id)?.length ?? 0)).toEqual([20, 20, 20]),
      {
        timeout: 20_000,
        interval: 50,
      },
    );
    for (const id of actors) expect(seen.get(id)).toEqual(all);
    expect(states).toHaveLength(60);
    for (const state of states) expect(state).toEqual({ n: expect.any(Number) });
  });

  it('pushes stored outcomes to watchOutcomes', async () => {
    const feed = await startFeed();
    const outcomes: IdempotencyRecord[] = [];
    feed.watchOutcomes((record) => outcomes.push(record));
    const id = `counter/${randomUUID()}`;
    const outcome: IdempotencyRecord = {
      key: randomUUID(),
      actorId: id,
      outcome: { ok: true, value: 42 },
      expiresAt: Date.now() + 60_000,
    };
    await commit(id, 1, [outcome]);
    await vi.waitFor(() => expect(outcomes).toEqual([outcome]), { timeout: 20_000, interval: 50 });
  });

  it('stops delivering to a listener once unsubscribed, and once stopped', async () => {
    const [stopped, running] = [await startFeed(), await startFeed()];
    const id = `counter/${randomUUID()}`;
    const gone: number[] = [];
    const kept: number[] = [];
    const onStopped: number[] = [];
    const unsubscribe = running.subscribe((r) => r.id === id && gone.push(r.ver));
    running.subscribe((r) => r.id === id && kept.push(r.ver));
    stopped.subscribe((r) => r.id === id && onStopped.push(r.ver));
    await commit(id, 1);
    await vi.waitFor(() => expect([gone, kept, onStopped]).toEqual([[1], [1], [1]]), {
      timeout: 20_000,
      interval: 50,
    });
    unsubscribe();
    await stopped.stop();
    await commit(id, 2);
    await vi.waitFor(() => expect(kept).toEqual([1, 2]), { timeout: 20_000, interval: 50 });
    expect(gone).toEqual([1]);
    expect(onStopped).toEqual([1]);
  });

  it('refuses a table without a stream, saying how to create one', async () => {
    const bare = `feed-bare-${randomUUID().slice(0, 8)}`;
    const { StreamSpecification: _, ...definition } = tableDefinition(bare);
    await clients.dynamodb.send(new CreateTableCommand(definition));
    try {
      const feed = new DynamoStreamFeed({ clients, tableName: bare });
      await expect(feed.start()).rejects.toMatchObject({
        code: 'INVALID_ARGUMENT',
        message: expect.stringMatching(/has no stream.*tableDefinition\(\) or createTable\(\)/),
      });
      await feed.stop();
    } finally {
      await clients.dynamodb.send(new DeleteTableCommand({ TableName: bare }));
    }
  });
});
