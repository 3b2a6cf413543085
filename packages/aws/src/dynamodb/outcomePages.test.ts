/**
 * Outcome pages on DynamoDB Local: a commit that begins a page puts it whole on one condition,
 * later commits append per outcome, and a page an earlier life of the actor left is appended to
 * as it is (its live outcomes still refuse their copies).
 */
import { randomUUID } from 'node:crypto';
import {
  DeleteItemCommand,
  DeleteTableCommand,
  type TransactWriteItemsCommandInput,
} from '@aws-sdk/client-dynamodb';
import { ErrorCode, isBatonError } from '@baton/core';
import type { ActorRecord, Commit, OutcomePageWrite, PagedOutcome } from '@baton/core/adapter';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createAwsClients } from '../createAwsClients.ts';
import { createTable } from './createTable.ts';
import { DynamoStore } from './DynamoStore.ts';
import { recordToItem } from './itemCodec.ts';

const { dynamodb } = createAwsClients({ dynamodbEndpoint: inject('dynamodbEndpoint') });
const tableName = `baton-pages-${randomUUID().slice(0, 8)}`;
const NOW = 1_000_000;
const store = new DynamoStore({ client: dynamodb, tableName, clock: { now: () => NOW } });

/** The page items of every `TransactWriteItems` the client sends. */
const pageItems: NonNullable<TransactWriteItemsCommandInput['TransactItems']>[number][] = [];
dynamodb.middlewareStack.add(
  (next, context) => (args) => {
    if (context.commandName === 'TransactWriteItemsCommand') {
      const { TransactItems = [] } = args.input as TransactWriteItemsCommandInput;
      pageItems.push(...TransactItems.filter((item) => isPage(item.Put?.Item ?? item.Update?.Key)));
    }
    return next(args);
  },
  { step: 'initialize', name: 'pageItems' },
);

function isPage(key: Record<string, { S?: string }> | undefined): boolean {
  return key?.sk?.S?.startsWith('P#') ?? false;
}

beforeAll(() => createTable(dynamodb, tableName));
afterAll(() => dynamodb.send(new DeleteTableCommand({ TableName: tableName })));

const fresh = () => `p-${randomUUID().slice(0, 8)}/a`;

function outcome(actorId: string, key: string): PagedOutcome {
  return { key, actorId, outcome: { ok: true, value: key }, expiresAt: NOW + 60_000, sentAt: 5 };
}

function commitOf(
  actorId: string,
  ver: number,
  life: string,
  page: Omit<OutcomePageWrite, 'page' | 'sentAt'>,
): Commit {
  const record: ActorRecord = {
    id: actorId,
    ver,
    life,
    state: { n: ver },
    inboxOffset: String(ver),
    marks: {},
    sentSeq: 0,
  };
  return {
    expectedVer: ver - 1,
    record,
    outbox: [],
    idempotency: [],
    outcomes: { page: 0, sentAt: 5, ...page },
  };
}

const keysOf = async (actorId: string) =>
  (await store.readPagedOutcomes(actorId, 0)).map(({ key }) => key).sort();

/** What an actor's halt leaves once DynamoDB's TTL removed its record: its pages. */
async function deleteRecord(actorId: string): Promise<void> {
  const { pk, sk } = recordToItem({ ...commitOf(actorId, 1, '', { records: [] }).record }, 8);
  await dynamodb.send(new DeleteItemCommand({ TableName: tableName, Key: { pk: pk!, sk: sk! } }));
}

describe('DynamoStore outcome pages', () => {
  it('puts a page it begins whole on one condition, then appends to it per outcome', async () => {
    const a = fresh();
    pageItems.length = 0;
    const first = [outcome(a, 'k1'), outcome(a, 'k2')];
    await store.commit(commitOf(a, 1, 'L', { records: first, begins: true }));
    await store.commit(commitOf(a, 2, 'L', { records: [outcome(a, 'k3')], begins: false }));
    expect(await keysOf(a)).toEqual(['k1', 'k2', 'k3']);
    const [whole, appended] = pageItems;
    expect(whole?.Put?.ConditionExpression).toBe('attribute_not_exists(#pk)');
    expect(appended?.Update?.ConditionExpression).toContain('attribute_not_exists(#o0)');
  });

  it("appends per outcome to a page an earlier life left, keeping that life's outcomes", async () => {
    const a = fresh();
    await store.commit(commitOf(a, 1, 'old', { records: [outcome(a, 'k1')], begins: true }));
    await deleteRecord(a);
    pageItems.length = 0;
    // The new life numbers its pages from 0 again: page 0 is there, holding k1.
    await store.commit(commitOf(a, 1, 'new', { records: [outcome(a, 'k2')], begins: true }));
    expect(pageItems.map((item) => (item.Put ? 'whole' : 'per outcome'))).toEqual([
      'whole',
      'per outcome',
    ]);
    expect(await keysOf(a)).toEqual(['k1', 'k2']);
    expect(await store.load(a)).toMatchObject({ ver: 1, life: 'new' });
  });

  it("refuses as a DUPLICATE a copy of a message whose outcome an earlier life's page holds", async () => {
    const a = fresh();
    await store.commit(commitOf(a, 1, 'old', { records: [outcome(a, 'k1')], begins: true }));
    await deleteRecord(a);
    const copy = commitOf(a, 1, 'new', {
      records: [outcome(a, 'k2'), outcome(a, 'k1')],
      begins: true,
    });
    const error = await store.commit(copy).then(
      () => undefined,
      (failure: unknown) => failure,
    );
    expect(isBatonError(error) && error.code).toBe(ErrorCode.DUPLICATE);
    expect(isBatonError(error) && error.details).toMatchObject({ keys: ['k1'] });
    expect(await store.load(a)).toBeUndefined();
    expect(await keysOf(a)).toEqual(['k1']);
  });
});
