import { randomUUID } from 'node:crypto';
import { DeleteTableCommand } from '@aws-sdk/client-dynamodb';
import type { ActorRecord } from '@baton/core/adapter';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createAwsClients } from '../createAwsClients.ts';
import { createTable } from './createTable.ts';
import { DynamoStore } from './DynamoStore.ts';
import { listPausedActors } from './listPausedActors.ts';

const { dynamodb } = createAwsClients({ dynamodbEndpoint: inject('dynamodbEndpoint') });
const tableName = `baton-paused-${randomUUID().slice(0, 8)}`;
const store = new DynamoStore({ client: dynamodb, tableName });

beforeAll(() => createTable(dynamodb, tableName));
afterAll(() => dynamodb.send(new DeleteTableCommand({ TableName: tableName })));

function record(id: string, paused?: ActorRecord['paused']): ActorRecord {
  return {
    id,
    ver: 1,
    state: {},
    inboxOffset: '1',
    marks: {},
    sentSeq: 0,
    ...(paused ? { paused } : {}),
  };
}

describe('listPausedActors', () => {
  it('finds the paused actors, with who paused them, and says when it stopped short of the table', async () => {
    const idle = { at: 1_000, by: 'ops' };
    for (const r of [
      record('a/live'),
      record('a/idle', idle),
      record('b/held', { at: 2, by: 'x' }),
    ]) {
      await store.commit({ expectedVer: 0, record: r, outbox: [], idempotency: [] });
    }
    const all = await listPausedActors(dynamodb, tableName, { maxItems: 100 });
    expect(all.complete).toBe(true);
    expect([...all.actors].sort((a, b) => (a.id < b.id ? -1 : 1))).toEqual([
      { id: 'a/idle', ...idle },
      { id: 'b/held', at: 2, by: 'x' },
    ]);

    const bounded = await listPausedActors(dynamodb, tableName, { maxItems: 1 });
    expect(bounded.complete).toBe(false);
    expect(bounded.actors.length).toBeLessThanOrEqual(1);
  });
});
