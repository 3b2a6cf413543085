import { describe, expect, it } from 'vitest';
import { CONNECTION_SK, connectionPk, instancePk } from '../connectionsTable.ts';
import { ConnectionRegistry } from './ConnectionRegistry.ts';
import { fresh, useConnectionsTable } from './fixtures/connectionsTableFixture.ts';
import type { InstanceItem } from './Instances.ts';

const { dynamodb, tableName, table } = useConnectionsTable();
const NOW = 1_700_000_000_000;
const registry = new ConnectionRegistry({
  client: dynamodb,
  tableName,
  clock: { now: () => NOW },
  maxConnectionMs: 30 * 60_000,
});

async function connect(): Promise<string> {
  const connectionId = fresh('conn');
  await registry.putConnection({
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
  await registry.addSubscription({ connectionId, subscriptionId, instanceId });
  const instance = await registry.upsertInstance(instanceId, {
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
  expect(await registry.saveRun(instance, change)).toBe(true);
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

    expect(await registry.getConnection(connectionId)).toBeUndefined();
    expect(await table.query(connectionPk(connectionId))).toEqual([]);
    expect(await table.query(instancePk(own))).toEqual([]);
    expect(await registry.dependents(ownActor)).toEqual([]);
    expect(await registry.getInstance(shared)).toBeDefined();
    expect(await registry.subscribers(shared)).toEqual([
      { connectionId: other, subscriptionId: theirs, instanceId: shared },
    ]);
    expect(await registry.dependents(sharedActor)).toEqual([shared]);
    await registry.removeConnection(connectionId);
  });

  it('drops the instance with the last subscription, and keeps it while another remains', async () => {
    const [a, b] = [await connect(), await connect()];
    const instanceId = fresh('inst');
    const actorId = fresh('account');
    const first = await subscribe(a, instanceId, actorId);
    const second = await subscribe(b, instanceId, actorId);

    await registry.removeSubscription(a, first);
    expect(await registry.getSubscription(a, first)).toBeUndefined();
    expect(await registry.getInstance(instanceId)).toBeDefined();

    await registry.removeSubscription(b, second);
    expect(await registry.getInstance(instanceId)).toBeUndefined();
    expect(await registry.dependents(actorId)).toEqual([]);
    expect(await registry.subscriptionsOf(b)).toEqual([]);
  });

  it('drops an instance without subscribers, and keeps one with subscribers', async () => {
    const connectionId = await connect();
    const [unused, used] = [fresh('inst'), fresh('inst')];
    const actorId = fresh('account');
    await subscribe(connectionId, used, actorId);
    const orphan = await registry.upsertInstance(unused, {
      key: '[]',
      query: 'balance',
      args: '{}',
      identity: undefined,
    });
    await saveRun(orphan, actorId);

    await registry.dropIfUnused(unused);
    await registry.dropIfUnused(used);

    expect(await registry.getInstance(unused)).toBeUndefined();
    expect(await registry.getInstance(used)).toBeDefined();
    expect(await registry.dependents(actorId)).toEqual([used]);
    await registry.dropIfUnused(fresh('never'));
  });

  it('answers requests through the pending part', async () => {
    const key = fresh('ingress');
    const waiting = { connectionId: 'c1', requestId: 'r1', kind: 'ask', actorId: 'a/b' } as const;
    await registry.putPending(key, waiting);
    await registry.putPending(key, { ...waiting, requestId: 'r2' });
    await registry.deletePending(key, 'c1', 'r2');
    expect(await registry.takePending(key)).toEqual([waiting]);
  });
});
