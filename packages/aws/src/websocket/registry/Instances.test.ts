import type { ReadPosition } from '@baton/server/evaluation';
import { describe, expect, it } from 'vitest';
import { dependencyPk, INSTANCE_SK, instancePk } from '../connectionsTable.ts';
import { fresh, TEST_TTL, useConnectionsTable } from './fixtures/connectionsTableFixture.ts';
import { type InstanceChange, type InstanceItem, Instances } from './Instances.ts';

const { table, ttl } = useConnectionsTable();
const instances = new Instances(table, ttl);

/** A new instance, as a subscribe creates it. */
function create(identity: unknown = { user: 'alice' }): Promise<InstanceItem> {
  return instances.upsert(fresh('inst'), {
    key: '["balance",{"account":"alice"},"alice"]',
    query: 'balance',
    args: '{"account":"alice"}',
    identity,
  });
}

/** A run's change; a dependency given as a number was read of a record without a life. */
const change = (reads: Record<string, number | ReadPosition>, hash = 'h1'): InstanceChange => ({
  version: 1,
  hash,
  failed: undefined,
  deps: Object.fromEntries(
    Object.entries(reads).map(([id, at]) => [id, typeof at === 'number' ? { ver: at } : at]),
  ),
});

/** The gen of the dependency item of `actorId` on `instanceId`, if there is one. */
async function dependency(actorId: string, instanceId: string) {
  return (await table.get(dependencyPk(actorId), instanceId))?.gen;
}

describe('Instances', () => {
  it('creates an instance at version 0 with no deps, rev 1, a gen and a TTL', async () => {
    const instance = await create();
    expect(instance).toMatchObject({
      query: 'balance',
      args: '{"account":"alice"}',
      identity: { user: 'alice' },
      version: 0,
      hash: undefined,
      failed: undefined,
      deps: {},
      rev: 1,
    });
    expect(instance.gen).toMatch(/^[0-9a-f-]{36}$/);
    expect(await instances.get(instance.id)).toEqual(instance);
    expect((await table.get(instancePk(instance.id), INSTANCE_SK))?.ttl).toBe(TEST_TTL);
  });

  it('keeps version, deps and gen of an existing instance on upsert, and bumps its rev', async () => {
    const first = await create();
    expect(await instances.saveRun(first, change({ 'account/alice': 1 }))).toBe(true);
    const again = await instances.upsert(first.id, { ...first, identity: null });
    expect(again).toMatchObject({ version: 1, deps: { 'account/alice': { ver: 1 } }, rev: 3 });
    expect(again.gen).toBe(first.gen);
  });

  it('keeps the life of each dependency beside its version', async () => {
    const instance = await create();
    const at = { ver: 2, life: 'k3x9q0m2a7bz' };
    expect(
      await instances.saveRun(instance, change({ 'account/alice': at, 'account/bob': 0 })),
    ).toBe(true);
    const saved = await instances.get(instance.id);
    expect(saved?.deps).toEqual({ 'account/alice': at, 'account/bob': { ver: 0 } });
  });

  it('saves a run at the rev it read: result, deps and the next rev', async () => {
    const instance = await create();
    expect(await instances.saveRun(instance, change({ 'account/alice': 4 }))).toBe(true);
    expect(await instances.get(instance.id)).toEqual({
      ...instance,
      version: 1,
      hash: 'h1',
      deps: { 'account/alice': { ver: 4 } },
      rev: 2,
    });
  });

  it('refuses a run saved at a stale rev and writes nothing', async () => {
    const instance = await create();
    const actorId = fresh('account');
    await instances.upsert(instance.id, instance); // another subscriber: rev 2
    const before = await instances.get(instance.id);
    expect(await instances.saveRun(instance, change({ [actorId]: 1 }))).toBe(false);
    expect(await instances.get(instance.id)).toEqual(before);
    expect(await instances.dependents(actorId)).toEqual([]);
  });

  it('refuses a run on an instance that is gone, without bringing it back', async () => {
    const instance = await create();
    expect(await instances.drop(instance)).toBe(true);
    expect(await instances.saveRun(instance, change({}))).toBe(false);
    expect(await instances.get(instance.id)).toBeUndefined();
  });

  it('moves the dependency items to what the run read', async () => {
    const [kept, dropped, added] = [fresh('account'), fresh('account'), fresh('account')];
    const instance = await create();
    expect(await instances.saveRun(instance, change({ [kept]: 1, [dropped]: 1 }))).toBe(true);
    const saved = (await instances.get(instance.id))!;
    expect(await instances.saveRun(saved, change({ [kept]: 2, [added]: 1 }, 'h2'))).toBe(true);
    expect(await instances.dependents(kept)).toEqual([instance.id]);
    expect(await instances.dependents(added)).toEqual([instance.id]);
    expect(await instances.dependents(dropped)).toEqual([]);
    expect(await dependency(added, instance.id)).toBe(instance.gen);
  });

  it('removes hash and failed when a run has none', async () => {
    const instance = await create();
    await instances.saveRun(instance, { ...change({}), failed: 'f1' });
    const failed = (await instances.get(instance.id))!;
    expect(failed).toMatchObject({ hash: 'h1', failed: 'f1' });
    await instances.saveRun(failed, { ...change({}), hash: undefined });
    const item = await table.get(instancePk(instance.id), INSTANCE_SK);
    expect(item).not.toHaveProperty('hash');
    expect(item).not.toHaveProperty('failed');
  });

  it('removes a dependency item of another incarnation only without a gen', async () => {
    const actorId = fresh('account');
    const instanceId = fresh('inst');
    await table.put({ pk: dependencyPk(actorId), sk: instanceId, gen: 'newer' });
    await instances.removeDependency(actorId, instanceId, 'older');
    expect(await dependency(actorId, instanceId)).toBe('newer');
    await instances.removeDependency(actorId, instanceId, 'newer');
    expect(await dependency(actorId, instanceId)).toBeUndefined();
    await table.put({ pk: dependencyPk(actorId), sk: instanceId, gen: 'newer' });
    await instances.removeDependency(actorId, instanceId);
    expect(await instances.dependents(actorId)).toEqual([]);
  });

  it('does not let an older incarnation drop the dependency items of a newer one', async () => {
    const actorId = fresh('account');
    const old = await create();
    await instances.saveRun(old, change({ [actorId]: 1 }));
    const oldSaved = (await instances.get(old.id))!;
    expect(await instances.drop(oldSaved)).toBe(true);
    // Subscribed again: a new incarnation under the same id, reading the same actor.
    const renewed = await instances.upsert(old.id, old);
    expect(renewed.gen).not.toBe(old.gen);
    await instances.saveRun(renewed, change({ [actorId]: 1 }));
    // A late handler still holding the old incarnation drops its dependency.
    await instances.removeDependency(actorId, old.id, old.gen);
    expect(await instances.dependents(actorId)).toEqual([old.id]);
    expect(await dependency(actorId, old.id)).toBe(renewed.gen);
  });

  it('drops an instance with its dependency items at the rev it read', async () => {
    const actorId = fresh('account');
    const instance = await create();
    await instances.saveRun(instance, change({ [actorId]: 1 }));
    const saved = (await instances.get(instance.id))!;
    expect(await instances.drop(saved)).toBe(true);
    expect(await instances.get(instance.id)).toBeUndefined();
    expect(await instances.dependents(actorId)).toEqual([]);
  });

  it('keeps an instance whose rev moved since it was read (a new subscriber), with its dependencies', async () => {
    const actorId = fresh('account');
    const instance = await create();
    await instances.saveRun(instance, change({ [actorId]: 1 }));
    const seen = (await instances.get(instance.id))!;
    await instances.upsert(instance.id, instance);
    expect(await instances.drop(seen)).toBe(false);
    expect(await instances.get(instance.id)).toBeDefined();
    expect(await instances.dependents(actorId)).toEqual([instance.id]);
  });
});
