import { describe, expect, it } from 'vitest';
import {
  CONNECTION_SK,
  connectionPk,
  INSTANCE_SK,
  instancePk,
  ownerPk,
} from '../connectionsTable.ts';
import { type ConnectionItem, Connections } from './Connections.ts';
import { fresh, TEST_TTL, useConnectionsTable } from './fixtures/connectionsTableFixture.ts';

const { table, ttl, dynamodb } = useConnectionsTable();
const connections = new Connections(table, ttl);

/** DynamoDB commands this file's client sent, by name. */
const sent = new Map<string, number>();
dynamodb.middlewareStack.add(
  (next, context) => (args) => {
    sent.set(context.commandName!, (sent.get(context.commandName!) ?? 0) + 1);
    return next(args);
  },
  { step: 'initialize', name: 'countCommands' },
);

const connection = (expiresAt: number, more: Partial<ConnectionItem> = {}): ConnectionItem => ({
  connectionId: fresh('conn'),
  identity: { user: 'alice' },
  expiresAt,
  endpoint: 'https://example.test/prod',
  ...more,
});

describe('Connections', () => {
  it('stores a connection with its identity as JSON and a TTL, and reads it back', async () => {
    const alice = connection(1_000);
    await connections.put(alice);
    expect(await connections.get(alice.connectionId)).toEqual(alice);
    expect(await table.get(connectionPk(alice.connectionId), CONNECTION_SK)).toMatchObject({
      identity: '{"user":"alice"}',
      ttl: TEST_TTL,
    });
  });

  it('stores an anonymous connection without identity', async () => {
    const anonymous = connection(1_000, { identity: undefined });
    await connections.put(anonymous);
    const item = await table.get(connectionPk(anonymous.connectionId), CONNECTION_SK);
    expect(item).not.toHaveProperty('identity');
    expect(await connections.get(anonymous.connectionId)).toEqual(anonymous);
  });

  it('reads many connections 100 a call, leaving out those not registered', async () => {
    const registered = Array.from({ length: 130 }, (_, i) => connection(1_000 + i));
    await Promise.all(registered.map((c) => connections.put(c)));
    const unknown = Array.from({ length: 40 }, () => fresh('gone'));
    const ids = [...registered.map((c) => c.connectionId), ...unknown];
    sent.clear();
    const found = await connections.getMany(ids);
    expect([...found.values()].sort((x, y) => x.expiresAt - y.expiresAt)).toEqual(registered);
    expect(found.size).toBe(130);
    // 170 keys: two calls, none of them one by one.
    expect(Object.fromEntries(sent)).toEqual({ BatchGetItemCommand: 2 });
    expect(await connections.getMany([])).toEqual(new Map());
  });

  it('moves the lease of a registered connection', async () => {
    const alice = connection(1_000);
    await connections.put(alice);
    expect(await connections.renew(alice.connectionId, 5_000)).toBe(true);
    expect((await connections.get(alice.connectionId))?.expiresAt).toBe(5_000);
  });

  it('renews a lapsed lease while the connection is still registered: only the sweeper ends it', async () => {
    const lapsed = connection(1_000);
    await connections.put(lapsed);
    expect(await connections.renew(lapsed.connectionId, 9_000)).toBe(true);
    expect((await connections.get(lapsed.connectionId))?.expiresAt).toBe(9_000);
  });

  it('refuses to renew a removed connection, and does not bring it back', async () => {
    const gone = connection(1_000);
    await connections.put(gone);
    await connections.remove(gone.connectionId);
    expect(await connections.renew(gone.connectionId, 5_000)).toBe(false);
    expect(await connections.get(gone.connectionId)).toBeUndefined();
    expect(await connections.renew(fresh('never'), 5_000)).toBe(false);
    expect(await connections.get(gone.connectionId)).toBeUndefined();
  });

  it('lists the connections whose lease lapsed before now, or whose identity ended, and only connections', async () => {
    // The table is shared by the file's tests: far-future leases keep the others out.
    const now = 1_000_000_000_000;
    const lapsed = connection(now - 1);
    const live = connection(now);
    await Promise.all([connections.put(lapsed), connections.put(live)]);
    // Another kind of item with a lapsed `expiresAt` is not a connection.
    const instanceId = fresh('inst');
    await table.put({ pk: instancePk(instanceId), sk: INSTANCE_SK, expiresAt: 0 });
    const ended = { ...connection(now + 60_000), validUntil: now };
    const valid = { ...connection(now + 60_000), validUntil: now + 1 };
    await Promise.all([connections.put(ended), connections.put(valid)]);
    const expired = await connections.expired(now);
    const ids = expired.map((e) => e.connectionId);
    expect(ids).toContain(lapsed.connectionId);
    expect(expired).toContainEqual({ connectionId: ended.connectionId, validUntil: now });
    for (const id of [live.connectionId, valid.connectionId, instanceId]) {
      expect(ids).not.toContain(id);
    }
  });

  it('numbers the frames of one second handled side by side, each once, past any cap', async () => {
    const alice = connection(1_000);
    await connections.put(alice);
    // Twelve frames at once, in a second the connection has not counted yet: every one finds
    // the window old, one starts it, and the others count in it — each gets its own number.
    const counted = await Promise.all(
      Array.from({ length: 12 }, () => connections.countFrame(alice.connectionId, 7)),
    );
    expect(counted.sort((x, y) => x - y)).toEqual(Array.from({ length: 12 }, (_, i) => i + 1));
    expect(await table.get(connectionPk(alice.connectionId), CONNECTION_SK)).toMatchObject({
      frameSecond: 7,
      frames: 12,
    });
    // The next second starts over; a frame of the second before, handled late, counts in it.
    expect(await connections.countFrame(alice.connectionId, 8)).toBe(1);
    expect(await connections.countFrame(alice.connectionId, 7)).toBe(2);
    expect(await table.get(connectionPk(alice.connectionId), CONNECTION_SK)).toMatchObject({
      frameSecond: 8,
      frames: 2,
    });
    // A connection gone counts nothing, and is not brought back.
    const gone = fresh('gone');
    expect(await connections.countFrame(gone, 8)).toBe(0);
    expect(await table.get(connectionPk(gone), CONNECTION_SK)).toBeUndefined();
  });

  it('counts a frame in one write, past the cap too: only the first of a second makes two', async () => {
    const alice = connection(1_000);
    await connections.put(alice);
    sent.clear();
    // A flood past a cap of 20: 60 frames of one second, one after the other.
    const numbers = [];
    for (let i = 0; i < 60; i++) numbers.push(await connections.countFrame(alice.connectionId, 9));
    expect(numbers).toEqual(Array.from({ length: 60 }, (_, i) => i + 1));
    // The first frame's count in the old window fails, then it starts the new one.
    expect(Object.fromEntries(sent)).toEqual({ UpdateItemCommand: 61 });
    sent.clear();
    expect(await connections.countFrame(alice.connectionId, 10)).toBe(1);
    expect(await connections.countFrame(alice.connectionId, 10)).toBe(2);
    expect(Object.fromEntries(sent)).toEqual({ UpdateItemCommand: 3 });
  });

  it('removes a connection item, idempotently', async () => {
    const alice = connection(1_000);
    await connections.put(alice);
    await connections.remove(alice.connectionId);
    await connections.remove(alice.connectionId);
    expect(await connections.get(alice.connectionId)).toBeUndefined();
  });

  describe("a user's connections", () => {
    let now = 1_800_000_000_000;
    const counting = new Connections(table, ttl, () => now);
    const counts = async (owner: string) =>
      (await table.query(ownerPk(owner))).map((item) => item.sk).sort();

    it('counts a connection under its owner from put to remove, an anonymous one nowhere', async () => {
      const owner = fresh('owner');
      const [a, b] = [connection(now + 60_000, { owner }), connection(now + 60_000, { owner })];
      await Promise.all([counting.put(a), counting.put(b), counting.put(connection(now + 60_000))]);
      expect(await counting.owned(owner, 100)).toBe(2);
      expect(await counting.get(a.connectionId)).toMatchObject({ owner });
      await counting.remove(a.connectionId);
      expect(await counts(owner)).toEqual([b.connectionId]);
      expect(await counting.owned(owner, 100)).toBe(1);
    });

    it('leaves out a count past its TTL, which DynamoDB may delete days late', async () => {
      const owner = fresh('owner');
      await counting.put(connection(now + 60_000, { owner }));
      await table.put({ pk: ownerPk(owner), sk: fresh('conn'), at: 0, ttl: now / 1000 - 1 });
      expect(await counting.owned(owner, 100)).toBe(1);
    });

    it('past the cap, drops counts whose connection is gone, once a minute old, and counts again', async () => {
      const owner = fresh('owner');
      const live = connection(now + 600_000, { owner });
      const leftover = connection(now + 600_000, { owner });
      await Promise.all([counting.put(live), counting.put(leftover)]);
      // A removal that stopped after the connection item: the count stays behind.
      await table.delete(connectionPk(leftover.connectionId), CONNECTION_SK);
      // A connect registering right now: its count is there, its connection item not yet.
      const registering = fresh('conn');
      now += 60_001;
      await table.put({ pk: ownerPk(owner), sk: registering, at: now, ttl: TEST_TTL });

      expect(await counting.owned(owner, 3)).toBe(3); // within the cap: nothing checked
      expect(await counting.owned(owner, 2)).toBe(2);
      expect(await counts(owner)).toEqual([live.connectionId, registering].sort());
    });
  });
});
