import { describe, expect, it } from 'vitest';
import { CONNECTION_SK, connectionPk, instancePk, shownPk } from '../connectionsTable.ts';
import { ConnectionRegistry } from './ConnectionRegistry.ts';
import { fresh, useConnectionsTable } from './fixtures/connectionsTableFixture.ts';
import type { InstanceItem } from './Instances.ts';

const { dynamodb, tableName, table } = useConnectionsTable();
// Today, not a fixed date: items get a TTL from it, and DynamoDB Local deletes expired items.
const NOW = Math.floor(Date.now() / 1000) * 1000;
const registry = new ConnectionRegistry({
  client: dynamodb,
  tableName,
  clock: { now: () => NOW },
  maxConnectionMs: 30 * 60_000,
});

async function connect(): Promise<string> {
  const connectionId = fresh('conn');
  await registry.connections.put({
    connectionId,
    identity: undefined,
    expiresAt: NOW + 60_000,
    endpoint: 'https://example.test/prod',
  });
  return connectionId;
}

/** Subscribes as the `subscribe` frame does, and saves a run that read `actorId`. */
async function subscribe(connectionId: string, instanceId: string, actorId: string) {
  const subscriptionId = fresh('s');
  await registry.subscriptions.add({ connectionId, subscriptionId, instanceId });
  const instance = await registry.instances.upsert(instanceId, {
    key: `["balance",${JSON.stringify(instanceId)}]`,
    query: 'balance',
    args: '{}',
    identity: undefined,
  });
  await saveRun(instance, actorId);
  return subscriptionId;
}

async function saveRun(instance: InstanceItem, actorId: string) {
  const change = { version: 1, hash: 'h', failed: undefined, deps: { [actorId]: { ver: 1 } } };
  expect(await registry.instances.saveRun(instance, change)).toBe(true);
}

describe('ConnectionRegistry', () => {
  it('gives items a TTL an hour past the longest connection', async () => {
    const connectionId = await connect();
    const item = await table.get(connectionPk(connectionId), CONNECTION_SK);
    expect(item?.ttl).toBe(Math.ceil((NOW + 30 * 60_000 + 60 * 60_000) / 1000));
  });

  it('removes a connection with its subscriptions, and the instances only it read', async () => {
    const [connectionId, other] = [await connect(), await connect()];
    const [own, shared] = [fresh('inst'), fresh('inst')];
    const [ownActor, sharedActor] = [fresh('account'), fresh('account')];
    await subscribe(connectionId, own, ownActor);
    await subscribe(connectionId, shared, sharedActor);
    const theirs = await subscribe(other, shared, sharedActor);

    await registry.removeConnection(connectionId);

    expect(await registry.connections.get(connectionId)).toBeUndefined();
    expect(await table.query(connectionPk(connectionId))).toEqual([]);
    expect(await table.query(instancePk(own))).toEqual([]);
    expect(await registry.instances.dependents(ownActor)).toEqual([]);
    expect(await registry.instances.get(shared)).toBeDefined();
    expect(await registry.subscriptions.subscribers(shared)).toEqual([
      { connectionId: other, subscriptionId: theirs, instanceId: shared },
    ]);
    expect(await registry.instances.dependents(sharedActor)).toEqual([shared]);
    await registry.removeConnection(connectionId);
  });

  it('removes with a connection the writes it was shown, and only its', async () => {
    const [connectionId, other] = [await connect(), await connect()];
    const key = fresh('ingress');
    await registry.shown.add(connectionId, key);
    await registry.shown.add(other, key);
    await registry.removeConnection(connectionId);
    expect(await table.query(shownPk(connectionId))).toEqual([]);
    expect(await registry.shown.has(other, key)).toBe(true);
  });

  it('drops the instance with the last subscription, and keeps it while another remains', async () => {
    const [a, b] = [await connect(), await connect()];
    const instanceId = fresh('inst');
    const actorId = fresh('account');
    const first = await subscribe(a, instanceId, actorId);
    const second = await subscribe(b, instanceId, actorId);

    await registry.removeSubscription(a, first);
    expect(await registry.subscriptions.get(a, first)).toBeUndefined();
    expect(await registry.instances.get(instanceId)).toBeDefined();

    await registry.removeSubscription(b, second);
    expect(await registry.instances.get(instanceId)).toBeUndefined();
    expect(await registry.instances.dependents(actorId)).toEqual([]);
    expect(await registry.subscriptions.of(b)).toEqual([]);
  });

  it('drops an instance without subscribers, and keeps one with subscribers', async () => {
    const connectionId = await connect();
    const [unused, used] = [fresh('inst'), fresh('inst')];
    const actorId = fresh('account');
    await subscribe(connectionId, used, actorId);
    const orphan = await registry.instances.upsert(unused, {
      key: '[]',
      query: 'balance',
      args: '{}',
      identity: undefined,
    });
    await saveRun(orphan, actorId);

    await registry.dropIfUnused(unused);
    await registry.dropIfUnused(used);

    expect(await registry.instances.get(unused)).toBeUndefined();
    expect(await registry.instances.get(used)).toBeDefined();
    expect(await registry.instances.dependents(actorId)).toEqual([used]);
    await registry.dropIfUnused(fresh('never'));
  });

  it('answers requests through the pending part', async () => {
    const key = fresh('ingress');
    const waiting = { connectionId: 'c1', requestId: 'r1', kind: 'ask', actorId: 'a/b' } as const;
    await registry.pending.put(key, waiting);
    await registry.pending.put(key, { ...waiting, requestId: 'r2' });
    await registry.pending.delete(key, 'c1', 'r2');
    expect(await registry.pending.take(key)).toEqual([waiting]);
  });
});
