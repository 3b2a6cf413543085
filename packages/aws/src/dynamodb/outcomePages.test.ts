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
import {
  type ActorRecord,
  type Commit,
  ingressMessageId,
  type OutcomePageWrite,
  type PagedOutcome,
} from '@baton/core/adapter';
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

  it('reads by message id through maxPages pages at most: a read that needs more throws LIMIT_EXCEEDED', async () => {
    const a = fresh();
    const id = (n: number) => ingressMessageId(a, `m${n}`);
    // Six pages, page n holding the message sent at 10 n.
    for (let n = 0; n < 6; n++) {
      const records = [{ ...outcome(a, id(n)), sentAt: 10 * n }];
      await store.commit({
        ...commitOf(a, n + 1, 'L', { records, begins: true }),
        outcomes: { page: n, sentAt: 10 * n, records, begins: true },
      });
    }
    const read = (key: string, sentAt: number, maxPages?: number) =>
      store.readIdempotency(key, sentAt, maxPages === undefined ? {} : { maxPages });

    // A message no page holds, read from the first send on: every page would be read.
    const error = await read(id(99), 0, 3).then(
      () => undefined,
      (failure: unknown) => failure,
    );
    expect(isBatonError(error) && error.code).toBe(ErrorCode.LIMIT_EXCEEDED);
    expect(isBatonError(error) && error.message).toMatch(
      /more than 3 outcome pages of .*: pass the sentAt its send returned.*baton outcome/,
    );
    expect(isBatonError(error) && error.details).toMatchObject({ actorId: a, limit: 3 });
    // Within the bound: a recent message's page, or pages from a recent sentAt on.
    expect(await read(id(3), 0, 3)).toMatchObject({ key: id(3), outcome: { ok: true } });
    expect(await read(id(99), 30, 3)).toBeUndefined();
    // Unbounded (an operator's read), the oldest page is read too.
    expect(await read(id(0), 0)).toMatchObject({ key: id(0) });
    // An outcome kept as an item of its own (a redrive's) answers whatever the pages.
    const { outcomes: _, ...commit } = commitOf(a, 7, 'L', { records: [] });
    const { sentAt: __, ...item } = outcome(a, id(98));
    await store.commit({ ...commit, idempotency: [item] });
    expect(await read(id(98), 0, 3)).toMatchObject({ key: id(98) });
  });
});
