import { randomUUID } from 'node:crypto';
import { DeleteTableCommand, GetItemCommand } from '@aws-sdk/client-dynamodb';
import type { ActorRecord, DeadLetter } from '@baton/core/adapter';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createAwsClients } from '../createAwsClients.ts';
import { sha256 } from '../internal/sha256.ts';
import { createTable } from './createTable.ts';
import { DynamoStore } from './DynamoStore.ts';
import {
  MESSAGE_TRAIL_RETENTION_MS,
  readMessageTrails,
  trailEnded,
  trailRedriven,
} from './messageTrails.ts';

const { dynamodb } = createAwsClients({ dynamodbEndpoint: inject('dynamodbEndpoint') });
const tableName = `baton-trails-${randomUUID().slice(0, 8)}`;
const store = new DynamoStore({ client: dynamodb, tableName });
const table = { client: dynamodb, tableName };

beforeAll(() => createTable(dynamodb, tableName));
afterAll(() => dynamodb.send(new DeleteTableCommand({ TableName: tableName })));

const record = (id: string, ver: number): ActorRecord => ({
  id,
  ver,
  state: {},
  inboxOffset: String(ver),
  marks: {},
  sentSeq: 0,
});

/** The letter of `messageId` at `actorId`, kept at `at`, as the engine writes it. */
const letter = (actorId: string, messageId: string, at: number): DeadLetter => ({
  actorId,
  messageId,
  envelope: {
    id: messageId,
    from: 'ingress',
    seq: 0,
    to: actorId,
    name: 'add',
    payload: {},
    sentAt: 1,
  },
  redrivable: true,
  error: { code: 'DEAD_LETTERED', message: 'failed 3 times', details: {} },
  attempts: 3,
  at,
});

describe('the trails of messages operators acted on', () => {
  it('counts a keeping redriven once, keeps the count when the engine writes the letter anew, and lists no trail as a letter', async () => {
    const actorId = 'tally/r';
    const messageId = 'ingress:["tally/r","k-1"]';
    const keep = (ver: number, at: number) =>
      store.commit({
        expectedVer: ver - 1,
        record: record(actorId, ver),
        outbox: [],
        idempotency: [],
        deadLetters: { put: [letter(actorId, messageId, at)], remove: [] },
      });
    await keep(1, 1_000);
    expect(await readMessageTrails(table, [{ actorId, messageId }])).toEqual([]);

    await trailRedriven(table, actorId, messageId, 1_000, 'ops', 2_000);
    // The same keeping redriven again: the last redrive moves on, the count does not.
    await trailRedriven(table, actorId, messageId, 1_000, 'other', 3_000);
    expect(await readMessageTrails(table, [{ actorId, messageId }])).toEqual([
      { actorId, messageId, redriven: { count: 1, at: 3_000, by: 'other', letterAt: 1_000 } },
    ]);

    // The redrive failed: the engine puts the letter whole again, kept at a later time.
    await keep(2, 4_000);
    await trailRedriven(table, actorId, messageId, 4_000, 'ops', 5_000);
    const [trail] = await readMessageTrails(table, [{ actorId, messageId }]);
    expect(trail?.redriven).toEqual({ count: 2, at: 5_000, by: 'ops', letterAt: 4_000 });
    expect((await store.listDeadLetters(actorId)).map((l) => l.at)).toEqual([4_000]);
    expect((await store.readDeadLetter(actorId, messageId))?.attempts).toBe(3);
  });

  it('records an end beside the message, a long id whole, and expires a trail after its retention', async () => {
    const actorId = 'tally/e';
    const messageId = `ingress:["tally/e","${'k'.repeat(1_200)}"]`;
    const other = { actorId, messageId: 'ingress:["tally/e","none"]' };
    await trailEnded(table, actorId, messageId, { at: 1_500, by: 'ops' }, 2_000);
    expect(await readMessageTrails(table, [{ actorId, messageId }, other])).toEqual([
      { actorId, messageId, ended: { at: 1_500, by: 'ops' } },
    ]);
    const { Item } = await dynamodb.send(
      new GetItemCommand({
        TableName: tableName,
        Key: { pk: { S: `A#${actorId}` }, sk: { S: `N#${sha256(messageId)}` } },
      }),
    );
    expect(Number(Item?.ttl?.N)).toBe(Math.ceil((2_000 + MESSAGE_TRAIL_RETENTION_MS) / 1000));
  });
});
