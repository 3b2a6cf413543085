import { randomUUID } from 'node:crypto';
import {
  DeleteTableCommand,
  DynamoDBClient,
  GetItemCommand,
  PutItemCommand,
  type PutItemCommandOutput,
  TransactWriteItemsCommand,
} from '@aws-sdk/client-dynamodb';
import { ErrorCode, isBatonError } from '@baton/core';
import type { ActorRecord, Commit, IdempotencyRecord, OutboxItem } from '@baton/core/adapter';
import { pageEntriesBytes, pageItemBytes, readConflict } from '@baton/core/adapter';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createAwsClients } from '../createAwsClients.ts';
import { createTable } from './createTable.ts';
import { DynamoStore } from './DynamoStore.ts';
import { type DynamoStoreOptions, DynamoTurnStore } from './DynamoTurnStore.ts';
import { recordToItem } from './itemCodec.ts';
import { mapTransactionError } from './mapTransactionError.ts';
import { DYNAMO_STORE_LIMITS, OUTBOX_INDEX_STEP_MS } from './tableLayout.ts';

const { dynamodb } = createAwsClients({ dynamodbEndpoint: inject('dynamodbEndpoint') });
const tableName = `baton-store-${randomUUID().slice(0, 8)}`;

beforeAll(() => createTable(dynamodb, tableName));
afterAll(() => dynamodb.send(new DeleteTableCommand({ TableName: tableName })));

let actors = 0;
/** A fresh actor id: the tests share one table. */
const fresh = () => `t${++actors}-${randomUUID().slice(0, 6)}/a`;

function storeWith(options: Partial<DynamoStoreOptions> = {}) {
  return new DynamoStore({ client: dynamodb, tableName, ...options });
}

function record(id: string, ver: number, state: unknown = { n: ver }): ActorRecord {
  return { id, ver, state, inboxOffset: String(ver), marks: {}, sentSeq: 0 };
}

function recordKey(id: string) {
  const { pk, sk } = recordToItem(record(id, 1), 8);
  return { pk: pk!, sk: sk! };
}

function commitOf(id: string, ver: number, parts: Partial<Commit> = {}): Commit {
  return { expectedVer: ver - 1, record: record(id, ver), outbox: [], idempotency: [], ...parts };
}

function outbox(actorId: string, seq: number, createdAt = 0): OutboxItem {
  return { actorId, seq, createdAt, envelopes: [] };
}

function outcome(key: string, actorId: string, expiresAt: number): IdempotencyRecord {
  return { key, actorId, outcome: { ok: true, value: key }, expiresAt };
}

async function failure(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected the promise to reject');
}

describe('DynamoStore', () => {
  it('loads what was committed, and undefined for an actor never committed', async () => {
    const store = storeWith();
    const a = fresh();
    const committed = {
      ...record(a, 1, { nested: { list: [1, 'two', null] }, text: 'ünïcödé ✓' }),
      marks: { 'b/1': { seq: 3, at: 17 } },
      sentSeq: 4,
    };
    await store.commit({ expectedVer: 0, record: committed, outbox: [], idempotency: [] });
    expect(await store.load(a)).toEqual(committed);
    expect(await store.load(fresh())).toBeUndefined();
  });

  it('writes back the record attributes a newer Baton wrote and this one does not know', async () => {
    const store = storeWith();
    const a = fresh();
    // A newer Baton's record: its own format number and an attribute unknown here.
    const Item = {
      ...recordToItem({ ...record(a, 1), life: 'newerbaton01', format: 2 }, 8),
      future: { M: { kept: { BOOL: true } } },
    };
    await dynamodb.send(new PutItemCommand({ TableName: tableName, Item }));
    const loaded = (await store.load(a))!;
    expect(loaded).toMatchObject({ ver: 1, life: 'newerbaton01', format: 2 });
    await store.commit(commitOf(a, 2, { record: { ...loaded, ver: 2, state: { n: 2 } } }));
    const { Item: stored } = await dynamodb.send(
      new GetItemCommand({ TableName: tableName, Key: recordKey(a), ConsistentRead: true }),
    );
    expect(stored).toMatchObject({ ver: { N: '2' }, fmt: { N: '2' }, future: Item.future });
    expect(await store.load(a)).toEqual({ ...loaded, ver: 2, state: { n: 2 } });
  });

  it('writes nothing when an idempotency key is already used', async () => {
    const store = storeWith({ clock: { now: () => 0 } });
    const a = fresh();
    const [k1, k2] = [randomUUID(), randomUUID()];
    await store.commit(commitOf(a, 1, { idempotency: [outcome(k1, a, 1000)] }));
    const error = await failure(
      store.commit(
        commitOf(a, 2, {
          outbox: [outbox(a, 1)],
          idempotency: [outcome(k2, a, 1000), outcome(k1, a, 1000)],
        }),
      ),
    );
    expect(readConflict(error)).toEqual({ kind: 'duplicate', keys: [k1] });
    expect((await store.load(a))!.ver).toBe(1);
    expect(await store.readOutbox(a)).toEqual([]);
    expect(await store.readIdempotency(k2)).toBeUndefined();
  });

  it('names every used key in a duplicate error', async () => {
    const store = storeWith({ clock: { now: () => 0 } });
    const a = fresh();
    const keys = [1, 2, 3].map(() => outcome(randomUUID(), a, 1000));
    await store.commit(commitOf(a, 1, { idempotency: keys.slice(0, 2) }));
    const error = await failure(store.commit(commitOf(a, 2, { idempotency: keys })));
    expect(readConflict(error)).toEqual({ kind: 'duplicate', keys: [keys[0]!.key, keys[1]!.key] });
  });

  it('rejects a stale version with a conflict that carries the current record', async () => {
    const store = storeWith();
    const a = fresh();
    await store.commit(commitOf(a, 1));
    await store.commit(commitOf(a, 2));
    const error = await failure(store.commit(commitOf(a, 2, { record: record(a, 2, 'late') })));
    expect(readConflict(error)).toEqual({ kind: 'version', current: record(a, 2) });
    expect((await store.load(a))!.ver).toBe(2);
  });

  it('rejects a first commit of an actor that exists, carrying the current record', async () => {
    const store = storeWith();
    const a = fresh();
    await store.commit(commitOf(a, 1));
    const error = await failure(store.commit(commitOf(a, 1, { record: record(a, 1, 'other') })));
    expect(readConflict(error)).toEqual({ kind: 'version', current: record(a, 1) });
  });

  it('treats an absent record as version 0', async () => {
    const store = storeWith();
    const error = await failure(store.commit(commitOf(fresh(), 3)));
    expect(readConflict(error)).toEqual({ kind: 'version', current: undefined });
  });

  it('checks the version before the idempotency keys', async () => {
    const store = storeWith({ clock: { now: () => 0 } });
    const a = fresh();
    const key = randomUUID();
    await store.commit(commitOf(a, 1, { idempotency: [outcome(key, a, 1000)] }));
    const again = { record: record(a, 1, 'other'), idempotency: [outcome(key, a, 1000)] };
    const error = await failure(store.commit(commitOf(a, 1, again)));
    expect(readConflict(error)?.kind).toBe('version');
  });

  it('lets exactly one of many concurrent commits from one version win', async () => {
    const store = storeWith();
    const a = fresh();
    await store.commit(commitOf(a, 1));
    const results = await Promise.allSettled(
      Array.from({ length: 8 }, (_, i) =>
        store.commit(commitOf(a, 2, { record: record(a, 2, { writer: i }) })),
      ),
    );
    const won = results.filter((r) => r.status === 'fulfilled');
    expect(won).toHaveLength(1);
    for (const r of results) {
      if (r.status === 'rejected') expect(readConflict(r.reason)?.kind).toBe('version');
    }
    expect((await store.load(a))!.ver).toBe(2);
  });

  it('applies a commit resent with its client request token once, without a conflict', async () => {
    const store = storeWith();
    const a = fresh();
    const commit = commitOf(a, 1, { outbox: [outbox(a, 1)] });
    await store.commit(commit);
    await store.commit(commitOf(a, 2));
    // What an SDK retry does after a lost answer: the same request again. DynamoDB answers
    // from the token (valid 10 minutes) and writes nothing, even though the record moved on.
    await store.commit(commit);
    expect(await store.load(a)).toEqual(record(a, 2));
    expect(await store.readOutbox(a)).toHaveLength(1);
  });

  it("gives a halted actor's record a TTL in epoch seconds, and reads its expiry back", async () => {
    const store = storeWith();
    const a = fresh();
    const expiresAt = 1_900_000_000_123;
    await store.commit(commitOf(a, 1, { record: { ...record(a, 1), expiresAt } }));
    expect(await store.load(a)).toEqual({ ...record(a, 1), expiresAt });
    const { Item } = await dynamodb.send(
      new GetItemCommand({ TableName: tableName, Key: recordKey(a) }),
    );
    expect(Item?.ttl).toEqual({ N: '1900000001' });
    // Its next commit revives it: no TTL any more.
    await store.commit(commitOf(a, 2));
    const revived = await dynamodb.send(
      new GetItemCommand({ TableName: tableName, Key: recordKey(a) }),
    );
    expect(revived.Item?.ttl).toBeUndefined();
  });

  it('gives a halted record that holds sends no TTL until they are retired, and it at their retire', async () => {
    const store = storeWith();
    const a = fresh();
    const expiresAt = 1_900_000_000_123;
    const halted = { ...record(a, 1), expiresAt, outbox: [outbox(a, 1)] };
    await store.commit(commitOf(a, 1, { record: halted }));
    const ttl = async () =>
      (await dynamodb.send(new GetItemCommand({ TableName: tableName, Key: recordKey(a) }))).Item
        ?.ttl;
    expect(await ttl()).toBeUndefined();
    await store.retireHeldOutbox(a, 1, undefined, expiresAt);
    expect(await ttl()).toEqual({ N: '1900000001' });
    expect(await store.load(a)).toEqual({ ...record(a, 1), ver: 2, expiresAt });
  });

  it('uses DynamoDB limits less the layout overhead by default, and outcome pages of 1 KB', () => {
    expect(storeWith().limits).toEqual({
      maxTransactionItems: 100,
      maxTransactionBytes: 4_000_000,
      maxItemBytes: DYNAMO_STORE_LIMITS.maxItemBytes,
      // Every commit writes its page again, and DynamoDB bills the whole item.
      outcomePageBytes: 1024,
    });
    expect(DYNAMO_STORE_LIMITS.maxItemBytes).toBeGreaterThan(409_250);
    expect(DYNAMO_STORE_LIMITS.maxItemBytes).toBeLessThan(409_600);
  });

  it('throws TRANSACTION_TOO_LARGE naming maxTransactionItems for 101 items', async () => {
    const store = storeWith();
    const a = fresh();
    const items = Array.from({ length: 100 }, (_, i) => outbox(a, i + 1));
    const error = await failure(store.commit(commitOf(a, 1, { outbox: items })));
    expect(error).toMatchObject({
      code: ErrorCode.TRANSACTION_TOO_LARGE,
      details: { what: 'maxTransactionItems', limit: 100, actual: 101 },
    });
    await store.commit(commitOf(a, 1, { outbox: items.slice(0, 99) }));
    expect(await store.readOutbox(a)).toHaveLength(99);
  });

  it('maps DynamoDB refusing 101 items to TRANSACTION_TOO_LARGE too', async () => {
    const store = storeWith({ limits: { maxTransactionItems: 1_000 } });
    const a = fresh();
    const items = Array.from({ length: 100 }, (_, i) => outbox(a, i + 1));
    const error = await failure(store.commit(commitOf(a, 1, { outbox: items })));
    expect(error).toMatchObject({
      code: ErrorCode.TRANSACTION_TOO_LARGE,
      details: { what: 'maxTransactionItems', actual: 101 },
    });
    expect(await store.load(a)).toBeUndefined();
  });

  it('throws TRANSACTION_TOO_LARGE naming maxItemBytes for an item over 400 KB', async () => {
    const store = storeWith();
    const a = fresh();
    const big = { ...record(a, 1), state: 'x'.repeat(400 * 1024) };
    const error = await failure(store.commit(commitOf(a, 1, { record: big })));
    expect(error).toMatchObject({
      code: ErrorCode.TRANSACTION_TOO_LARGE,
      details: { what: 'maxItemBytes', limit: DYNAMO_STORE_LIMITS.maxItemBytes },
    });
    expect(await store.load(a)).toBeUndefined();
  });

  it('maps DynamoDB refusing an item over 400 KB to TRANSACTION_TOO_LARGE too', async () => {
    const store = storeWith({ limits: { maxItemBytes: 1_000_000 } });
    const a = fresh();
    const big = { ...record(a, 1), state: 'x'.repeat(400 * 1024) };
    const error = await failure(store.commit(commitOf(a, 1, { record: big })));
    expect(error).toMatchObject({
      code: ErrorCode.TRANSACTION_TOO_LARGE,
      details: { what: 'maxItemBytes' },
    });
    expect(await store.load(a)).toBeUndefined();
  });

  it('stores items of exactly maxItemBytes in their largest shapes', async () => {
    const store = storeWith();
    const { maxItemBytes } = store.limits;
    const max = Number.MAX_SAFE_INTEGER;
    const a = fresh();
    const fill = (base: unknown, set: (pad: string) => unknown) => {
      const pad = 'x'.repeat(maxItemBytes - JSON.stringify(base).length);
      const value = set(pad);
      expect(JSON.stringify(value).length).toBe(maxItemBytes);
      return value;
    };
    const rec = fill({ ...record(a, 1, ''), sentSeq: max }, (pad) => ({
      ...record(a, 1, pad),
      sentSeq: max,
    })) as ActorRecord;
    const item = fill({ ...outbox(a, max, max), envelopes: [''] }, (pad) => ({
      ...outbox(a, max, max),
      envelopes: [pad],
    })) as unknown as OutboxItem;
    const key = `k${randomUUID()}`;
    const idem = fill({ ...outcome(key, a, max), outcome: { ok: true, value: '' } }, (pad) => ({
      ...outcome(key, a, max),
      outcome: { ok: true, value: pad },
    })) as IdempotencyRecord;
    await store.commit({ expectedVer: 0, record: rec, outbox: [item], idempotency: [idem] });
    expect(await store.load(a)).toEqual(rec);
    expect(await store.readOutbox(a)).toEqual([item]);
    expect(await store.readIdempotency(key)).toEqual(idem);
    // A record holding sends is in the outbox index besides: one write of that shape.
    const b = fresh();
    const holding = { ...record(b, 1, ''), sentSeq: max, outbox: [outbox(b, max, max)] };
    const full = fill({ ...holding, outboxApart: true }, (pad) => ({
      ...holding,
      state: pad,
      outboxApart: true,
    })) as ActorRecord;
    await store.commit({ expectedVer: 0, record: full, outbox: [], idempotency: [] });
    expect(await store.load(b)).toEqual(full);
  });

  it('commits a record holding its sends as one conditional write, listed for the sweeper', async () => {
    const commands: string[] = [];
    const client = new DynamoDBClient({ endpoint: inject('dynamodbEndpoint') });
    client.middlewareStack.add(
      (next, context) => (args) => {
        commands.push(String(context.commandName));
        return next(args);
      },
      { step: 'initialize' },
    );
    const counting = new DynamoStore({ client, tableName });
    const a = fresh();
    const held = [outbox(a, 1, OUTBOX_INDEX_STEP_MS + 100)];
    await counting.commit(commitOf(a, 1, { record: { ...record(a, 1), outbox: held } }));
    expect(commands).toEqual(['PutItemCommand']);
    expect((await counting.load(a))?.outbox).toEqual(held);
    expect(await counting.listOutboxActors(OUTBOX_INDEX_STEP_MS + 101)).toContain(a);
    // Filed by index step: listed early within its step, never before it.
    expect(await counting.listOutboxActors(OUTBOX_INDEX_STEP_MS + 1)).toContain(a);
    expect(await counting.listOutboxActors(OUTBOX_INDEX_STEP_MS)).not.toContain(a);

    // A stale write fails on its condition, carrying the stored record, as a transaction would.
    const error = await failure(counting.commit(commitOf(a, 1, { record: record(a, 1, 'late') })));
    expect(readConflict(error)).toMatchObject({
      kind: 'version',
      current: { ver: 1, outbox: held },
    });
    // A commit with more than its record is a transaction.
    await counting.commit(commitOf(a, 2, { outbox: [outbox(a, 2)] }));
    expect(commands.at(-1)).toBe('TransactWriteItemsCommand');
    expect(await counting.load(a)).not.toHaveProperty('outbox');
  });

  it('tells lives apart: a commit or a retire for another life at the same version does nothing', async () => {
    const store = storeWith({ clock: { now: () => 0 } });
    const a = fresh();
    const life = (ver: number, id: string | undefined, parts: Partial<ActorRecord> = {}) => ({
      ...record(a, ver),
      ...(id === undefined ? {} : { life: id }),
      ...parts,
    });
    await store.commit(commitOf(a, 1, { record: life(1, 'new', { outbox: [outbox(a, 1)] }) }));
    for (const other of ['old', undefined]) {
      // One conditional PutItem, and a transaction (it puts an idempotency record too).
      const single = commitOf(a, 2, { record: life(2, other) });
      const transaction = { ...single, idempotency: [outcome(randomUUID(), a, 1000)] };
      for (const commit of [single, transaction]) {
        const error = await failure(store.commit(commit));
        expect(readConflict(error)).toMatchObject({ kind: 'version', current: { life: 'new' } });
      }
      await store.retireHeldOutbox(a, 1, other, undefined);
      expect(await store.load(a)).toMatchObject({ ver: 1, outbox: [{ seq: 1 }] });
    }
    await store.retireHeldOutbox(a, 1, 'new', undefined);
    expect(await store.load(a)).toEqual({ ...life(1, 'new'), ver: 2 });
    await store.commit(commitOf(a, 3, { record: life(3, 'new') }));
    expect(await store.load(a)).toMatchObject({ ver: 3, life: 'new' });
  });

  it("writes no outbox index entry for an actor's sending commits within one index step", async () => {
    // DynamoDB reports the index's share of a write's capacity when asked.
    const indexUnits: number[] = [];
    const client = new DynamoDBClient({ endpoint: inject('dynamodbEndpoint') });
    client.middlewareStack.add(
      (next) => async (args) => {
        const input = args.input as { ReturnConsumedCapacity?: string };
        input.ReturnConsumedCapacity = 'INDEXES';
        const result = await next(args);
        const output = result.output as PutItemCommandOutput;
        indexUnits.push(
          output.ConsumedCapacity?.GlobalSecondaryIndexes?.outbox?.CapacityUnits ?? 0,
        );
        return result;
      },
      { step: 'initialize' },
    );
    const counting = new DynamoStore({ client, tableName });
    const a = fresh();
    const step = 3 * OUTBOX_INDEX_STEP_MS;
    const sending = (ver: number, createdAt?: number) => {
      const held = createdAt === undefined ? {} : { outbox: [outbox(a, ver, createdAt)] };
      return commitOf(a, ver, { record: { ...record(a, ver), ...held } });
    };
    await counting.commit(sending(1, step + 10)); // a new entry: one write
    await counting.commit(sending(2, step + 900)); // the same step: none
    await counting.commit(sending(3, step + OUTBOX_INDEX_STEP_MS)); // the next: old out, new in
    await counting.commit(sending(4)); // no sends: the entry goes
    expect(indexUnits).toEqual([1, 0, 2, 1]);
  });

  it('retires the sends a record holds at a version, and nothing once a commit replaced it', async () => {
    const store = storeWith();
    const [a, b] = [fresh(), fresh()];
    for (const id of [a, b]) {
      await store.commit(
        commitOf(id, 1, { record: { ...record(id, 1), outbox: [outbox(id, 1)] } }),
      );
    }
    await store.retireHeldOutbox(a, 1, undefined, undefined);
    expect(await store.load(a)).toEqual({ ...record(a, 1), ver: 2 });
    expect(await store.listOutboxActors(1)).not.toContain(a);

    await store.retireHeldOutbox(b, 0, undefined, undefined); // not at that version: nothing
    expect((await store.load(b))?.outbox).toHaveLength(1);
    expect(await store.listOutboxActors(1)).toContain(b);
    await store.retireHeldOutbox(fresh(), 1, undefined, undefined); // no record: nothing either
  });

  it('throws TRANSACTION_TOO_LARGE naming maxTransactionBytes for a commit too large', async () => {
    const store = storeWith({ limits: { maxTransactionBytes: 1_000 } });
    const a = fresh();
    const items = [1, 2, 3].map((seq) => ({ ...outbox(a, seq), pad: 'x'.repeat(300) }));
    const error = await failure(store.commit(commitOf(a, 1, { outbox: items })));
    expect(error).toMatchObject({
      code: ErrorCode.TRANSACTION_TOO_LARGE,
      details: { what: 'maxTransactionBytes', limit: 1_000 },
    });
    expect(await store.readOutbox(a)).toEqual([]);
  });

  it('maps DynamoDB refusing a commit over 4 MB to TRANSACTION_TOO_LARGE too', async () => {
    const store = storeWith({ limits: { maxTransactionBytes: 10_000_000 } });
    const a = fresh();
    const items = Array.from({ length: 11 }, (_, i) => ({
      ...outbox(a, i + 1),
      envelopes: ['e'.repeat(390_000)],
    })) as unknown as OutboxItem[];
    const error = await failure(store.commit(commitOf(a, 1, { outbox: items })));
    expect(error).toMatchObject({
      code: ErrorCode.TRANSACTION_TOO_LARGE,
      details: { what: 'maxTransactionBytes' },
    });
    expect(await store.readOutbox(a)).toEqual([]);
  });

  it('rejects a record whose ver is not expectedVer + 1 as an invalid argument', async () => {
    const store = storeWith();
    const error = await failure(store.commit({ ...commitOf(fresh(), 1), expectedVer: 1 }));
    expect(isBatonError(error) && error.code).toBe(ErrorCode.INVALID_ARGUMENT);
  });

  it('reads the outbox in seq order and ignores deletes of missing items', async () => {
    const store = storeWith();
    const [a, b] = [fresh(), fresh()];
    await store.commit(commitOf(a, 1, { outbox: [outbox(a, 5), outbox(a, 12), outbox(a, 2)] }));
    await store.commit(commitOf(a, 2, { outbox: [outbox(a, 3)] }));
    expect((await store.readOutbox(a)).map((item) => item.seq)).toEqual([2, 3, 5, 12]);
    await store.deleteOutbox(a, [3, 7, 3], undefined);
    await store.deleteOutbox(b, [1], undefined);
    expect((await store.readOutbox(a)).map((item) => item.seq)).toEqual([2, 5, 12]);
  });

  it('reads and deletes an outbox larger than one query page and one batch', async () => {
    const store = storeWith();
    const a = fresh();
    const envelope = (seq: number) => ({
      id: `${a}:${seq}`,
      from: a,
      seq,
      to: 'b/1',
      name: 'note',
      payload: 'p'.repeat(40_000),
      sentAt: 1,
    });
    const items = Array.from({ length: 60 }, (_, i) => ({
      ...outbox(a, i + 1),
      envelopes: [envelope(i + 1)],
    }));
    await store.commit(commitOf(a, 1, { outbox: items.slice(0, 30) }));
    await store.commit(commitOf(a, 2, { outbox: items.slice(30) }));
    const read = await store.readOutbox(a);
    expect(read.map((item) => item.seq)).toEqual(items.map((item) => item.seq));
    expect(read[59]).toEqual(items[59]);
    await store.deleteOutbox(
      a,
      read.map((item) => item.seq),
      undefined,
    );
    expect(await store.readOutbox(a)).toEqual([]);
  });

  it('lists the actors with outbox items older than a time', async () => {
    const store = storeWith();
    const [a, b, c] = [fresh(), fresh(), fresh()];
    const mine = (ids: string[]) => ids.filter((id) => [a, b, c].includes(id)).sort();
    const step = OUTBOX_INDEX_STEP_MS;
    await store.commit(commitOf(a, 1, { outbox: [outbox(a, 1, 100), outbox(a, 2, 100)] }));
    await store.commit(commitOf(b, 1, { outbox: [outbox(b, 1, 2 * step + 500)] }));
    await store.commit(commitOf(c, 1));
    expect(mine(await store.listOutboxActors(0))).toEqual([]);
    expect(mine(await store.listOutboxActors(101))).toEqual([a]);
    expect(mine(await store.listOutboxActors(2 * step))).toEqual([a]);
    expect(mine(await store.listOutboxActors(2 * step + 1))).toEqual([a, b].sort());
    expect(mine(await store.listOutboxActors(Number.MAX_SAFE_INTEGER))).toEqual([a, b].sort());
    await store.deleteOutbox(a, [1, 2], undefined);
    expect(mine(await store.listOutboxActors(Number.MAX_SAFE_INTEGER))).toEqual([b]);
  });

  it('lists the actors with outbox items oldest first, by the oldest item each holds', async () => {
    const store = storeWith();
    const [a, b, c] = [fresh(), fresh(), fresh()];
    const mine = (ids: string[]) => ids.filter((id) => [a, b, c].includes(id));
    const step = OUTBOX_INDEX_STEP_MS;
    // Committed in another order than their age; b's sends are held in its record.
    await store.commit(commitOf(a, 1, { outbox: [outbox(a, 1, 3 * step + 1)] }));
    const held = { ...record(b, 1), outbox: [outbox(b, 1, 100)] };
    await store.commit({ ...commitOf(b, 1), record: held });
    await store.commit(
      commitOf(c, 1, { outbox: [outbox(c, 1, 5 * step), outbox(c, 2, step + 1)] }),
    );
    expect(mine(await store.listOutboxActors(Number.MAX_SAFE_INTEGER))).toEqual([b, c, a]);
  });

  it('treats an idempotency record as absent once it expires', async () => {
    let now = 0;
    const store = storeWith({ clock: { now: () => now } });
    const a = fresh();
    const key = randomUUID();
    await store.commit(commitOf(a, 1, { idempotency: [outcome(key, a, 1000)] }));
    now = 999;
    expect(await store.readIdempotency(key)).toMatchObject({ key, actorId: a });
    now = 1000;
    expect(await store.readIdempotency(key)).toBeUndefined();
    await store.commit(commitOf(a, 2, { idempotency: [outcome(key, a, 5000)] }));
    expect(await store.readIdempotency(key)).toMatchObject({ expiresAt: 5000 });
  });

  it('maps a reused client request token with other content to a version conflict', async () => {
    const a = fresh();
    const put = (state: string) =>
      new TransactWriteItemsCommand({
        TransactItems: [
          { Put: { TableName: tableName, Item: recordToItem(record(a, 1, state), 8) } },
        ],
        ClientRequestToken: `token-${a}`.slice(0, 36),
      });
    await dynamodb.send(put('first'));
    const error = await failure(dynamodb.send(put('second')));
    const mapped = mapTransactionError(error, commitOf(a, 1), DYNAMO_STORE_LIMITS);
    expect(readConflict(mapped)).toEqual({ kind: 'version', current: undefined });
  });

  it("names the outcome page's size when DynamoDB finds an item too large and the page is the largest", () => {
    const a = fresh();
    const error = Object.assign(new Error('Item size has exceeded the maximum allowed size'), {
      name: 'ValidationException',
    });
    const records = [{ ...outcome('k'.repeat(300), a, 1), sentAt: 1 }];
    const appended = pageEntriesBytes(records);
    const held = 300_000;
    const onPage = (page: number, bytes: number): Commit => ({
      ...commitOf(a, 2, { outcomes: { page: 4, sentAt: 1, records } }),
      record: { ...record(a, 2), outcomePage: { page, bytes } },
    });
    // Still open after the commit, the page's bytes are all its entries', the held ones too.
    const open = mapTransactionError(error, onPage(4, held + appended), DYNAMO_STORE_LIMITS);
    expect(open).toMatchObject({
      code: ErrorCode.TRANSACTION_TOO_LARGE,
      details: { what: 'maxItemBytes', actual: pageItemBytes(held + appended) },
    });
    // Closed by it, the page is known by the entries the commit appends.
    const closed = mapTransactionError(error, onPage(5, 0), DYNAMO_STORE_LIMITS);
    expect(closed).toMatchObject({ details: { actual: pageItemBytes(appended) } });
  });

  it('reports a missing table as UNAVAILABLE, keeping the cause', async () => {
    const store = new DynamoStore({ client: dynamodb, tableName: `missing-${randomUUID()}` });
    const error = await failure(store.load('a/1'));
    expect(error).toMatchObject({
      code: ErrorCode.UNAVAILABLE,
      details: { awsError: 'ResourceNotFoundException' },
    });
    expect((error as Error).cause).toBeDefined();
  });

  it('refuses bad options all at once', () => {
    expect(() => new DynamoStore({ client: dynamodb, tableName: '', outboxShards: 0 })).toThrow(
      /tableName.*outboxShards/,
    );
  });
});

describe('DynamoTurnStore', () => {
  it("commits and reads the same table as the whole store: it is the whole store's turns' part", async () => {
    const turns = new DynamoTurnStore({ client: dynamodb, tableName, outboxShards: 4 });
    const whole = storeWith({ outboxShards: 4 });
    const a = fresh();
    await turns.commit(commitOf(a, 1, { outbox: [outbox(a, 0, 1)] }));
    expect(await whole.load(a)).toEqual(record(a, 1));
    expect(await whole.listOutboxActors(Date.now() + OUTBOX_INDEX_STEP_MS)).toContain(a);
    await whole.commit(commitOf(a, 2));
    expect(await turns.load(a)).toEqual(record(a, 2));
    expect((await turns.readOutbox(a)).map((item) => item.seq)).toEqual([0]);
    expect(whole).toBeInstanceOf(DynamoTurnStore);
    expect(turns.limits).toEqual(whole.limits);
  });

  it('refuses the options the whole store refuses, with the same error', () => {
    const bad = { client: dynamodb, tableName: '', outboxShards: 0, limits: { maxItemBytes: 0 } };
    const refusal = (make: () => unknown) => {
      try {
        make();
      } catch (error) {
        return error;
      }
      throw new Error('expected the options to be refused');
    };
    const turns = refusal(() => new DynamoTurnStore(bad));
    expect(turns).toMatchObject({ code: ErrorCode.INVALID_ARGUMENT });
    expect(turns).toEqual(refusal(() => new DynamoStore(bad)));
  });
});
