import { randomUUID } from 'node:crypto';
import type { ReadPosition } from '@baton/server/evaluation';
import { RegistryAttr as A, dependencyPk, INSTANCE_SK, instancePk } from '../connectionsTable.ts';
import { type Expression, type Item, parseJson, type RegistryTable } from './RegistryTable.ts';

/**
 * A shared query instance as the registry holds it.
 *
 * @example
 * const instance = await registry.instances.get(hashText(key)); // instance?.version, instance?.deps
 */
export interface InstanceItem {
  readonly id: string;
  /** The instance key `[query, canonical args, scope]` as JSON. */
  readonly key: string;
  readonly query: string;
  /** The parsed args as canonical JSON. */
  readonly args: string;
  readonly identity: unknown;
  /** The result version: +1 per changed result. */
  readonly version: number;
  /** The hash of the last result, `undefined` before the first. */
  readonly hash: string | undefined;
  /** The fingerprint of the error the last run gave, if it failed. */
  readonly failed: string | undefined;
  /** Actor id → the version and life the last run read. */
  readonly deps: Readonly<Record<string, ReadPosition>>;
  /** Write counter: updates are conditional on it, so concurrent handlers never go backwards. */
  readonly rev: number;
  /** Set when the item is created: tells dependency items of an older incarnation apart. */
  readonly gen: string;
}

/**
 * What a run changes on an instance.
 *
 * @example
 * const deps = { 'account/alice': { ver: 3, life: 'k3x9q0m2a7bz' } };
 * const change: InstanceChange = { version: 2, hash, failed: undefined, deps };
 */
export interface InstanceChange {
  readonly version: number;
  readonly hash: string | undefined;
  readonly failed: string | undefined;
  readonly deps: Readonly<Record<string, ReadPosition>>;
}

/**
 * The shared query instances (`Q#<instance>` / `Q`) and their dependency items
 * (`D#<actor id>` / `<instance>`), which tell the stream handler whom a write concerns. Every
 * write of an instance is conditional on or bumps its `rev`, so concurrent handlers never go
 * backwards; dependency items carry the instance's `gen`, so a newer incarnation's are not
 * deleted for an older one's.
 *
 * @example
 * const instances = new Instances(table, ttl);
 * const instance = await instances.upsert(id, { key, query, args, identity });
 */
export class Instances {
  /**
   * @param ttl the `ttl` (epoch seconds) to give an item written now
   */
  constructor(
    private readonly table: RegistryTable,
    private readonly ttl: () => number,
  ) {}

  /**
   * Creates the instance if it is new, renews its TTL and bumps its `rev` (so that a concurrent
   * drop does not delete it under a new subscriber); returns it as stored.
   */
  async upsert(
    id: string,
    fields: Pick<InstanceItem, 'key' | 'query' | 'args' | 'identity'>,
  ): Promise<InstanceItem> {
    const item = await this.table.updateReturning(instancePk(id), INSTANCE_SK, {
      expression:
        'SET #key = :key, #query = :query, #args = :args, #identity = :identity, #ttl = :ttl, ' +
        '#version = if_not_exists(#version, :zero), #deps = if_not_exists(#deps, :deps), ' +
        '#gen = if_not_exists(#gen, :gen) ADD #rev :one',
      names: {
        '#key': A.key,
        '#query': A.query,
        '#args': A.args,
        '#identity': A.identity,
        '#ttl': A.ttl,
        '#version': A.version,
        '#deps': A.deps,
        '#gen': A.gen,
        '#rev': A.rev,
      },
      values: {
        ':key': fields.key,
        ':query': fields.query,
        ':args': fields.args,
        ':identity': JSON.stringify(fields.identity ?? null),
        ':ttl': this.ttl(),
        ':zero': 0,
        ':deps': '{}',
        ':gen': randomUUID(),
        ':one': 1,
      },
    });
    return toInstance(item);
  }

  async get(id: string): Promise<InstanceItem | undefined> {
    const item = await this.table.get(instancePk(id), INSTANCE_SK);
    return item ? toInstance(item) : undefined;
  }

  /**
   * Stores a run's result on condition that the instance is still at `instance.rev` and moves
   * its dependency items to the new reads. False if another handler wrote first or the instance
   * is gone (the caller reloads and runs again, or stops).
   */
  async saveRun(instance: InstanceItem, change: InstanceChange): Promise<boolean> {
    const names: Record<string, string> = { '#version': A.version, '#deps': A.deps, '#rev': A.rev };
    const set = ['#version = :version', '#deps = :deps', '#rev = :next'];
    const remove: string[] = [];
    const values: Record<string, unknown> = {
      ':version': change.version,
      ':deps': encodeDeps(change.deps),
      ':next': instance.rev + 1,
    };
    for (const [name, value] of [
      ['hash', change.hash],
      ['failed', change.failed],
    ] as const) {
      names[`#${name}`] = A[name];
      if (value === undefined) remove.push(`#${name}`);
      else {
        set.push(`#${name} = :${name}`);
        values[`:${name}`] = value;
      }
    }
    const update: Expression = {
      expression: `SET ${set.join(', ')}${remove.length ? ` REMOVE ${remove.join(', ')}` : ''}`,
      names,
      values,
    };
    const saved = await this.table.update(instancePk(instance.id), INSTANCE_SK, update, {
      expression: '#rev = :rev',
      names: { '#rev': A.rev },
      values: { ':rev': instance.rev },
    });
    if (!saved) return false;
    const added = Object.keys(change.deps).filter((id) => !(id in instance.deps));
    const dropped = Object.keys(instance.deps).filter((id) => !(id in change.deps));
    await Promise.all([
      ...added.map((actorId) =>
        this.table.put({
          [A.pk]: dependencyPk(actorId),
          [A.sk]: instance.id,
          [A.gen]: instance.gen,
        }),
      ),
      ...dropped.map((actorId) => this.removeDependency(actorId, instance.id, instance.gen)),
    ]);
    return true;
  }

  /**
   * Deletes the instance if it is still at `instance.rev` (a subscriber arriving meanwhile bumps
   * it, and keeps it), then its dependency items. False if it was kept.
   */
  async drop(instance: InstanceItem): Promise<boolean> {
    const deleted = await this.table.delete(instancePk(instance.id), INSTANCE_SK, {
      expression: '#rev = :rev',
      names: { '#rev': A.rev },
      values: { ':rev': instance.rev },
    });
    if (!deleted) return false;
    await Promise.all(
      Object.keys(instance.deps).map((actorId) =>
        this.removeDependency(actorId, instance.id, instance.gen),
      ),
    );
    return true;
  }

  /** Ids of the instances that depend on `actorId`. */
  async dependents(actorId: string): Promise<string[]> {
    const items = await this.table.query(dependencyPk(actorId));
    return items.map((item) => item[A.sk] as string);
  }

  /** Deletes a dependency item (only the one of incarnation `gen`, when given). */
  async removeDependency(actorId: string, instanceId: string, gen?: string): Promise<void> {
    await this.table.delete(
      dependencyPk(actorId),
      instanceId,
      gen === undefined
        ? undefined
        : {
            expression: 'attribute_not_exists(#gen) OR #gen = :gen',
            names: { '#gen': A.gen },
            values: { ':gen': gen },
          },
    );
  }
}

/**
 * The most bytes an instance's item may take: DynamoDB's 400 KB item limit, less room to spare.
 * A run whose dependencies would pass it is stored as a failure (see `refreshInstance`): a write
 * refused as too large would fail every stream batch that holds a change it read.
 */
export const MAX_INSTANCE_ITEM_BYTES = 380 * 1024;

/**
 * The bytes `instance`'s item takes once a run stores `change`, as DynamoDB counts them: the
 * attribute names and the values' UTF-8 bytes (a number at most 21).
 */
export function instanceItemBytes(instance: InstanceItem, change: InstanceChange): number {
  const strings = [
    instancePk(instance.id),
    INSTANCE_SK,
    instance.key,
    instance.query,
    instance.args,
    JSON.stringify(instance.identity ?? null),
    encodeDeps(change.deps),
    change.hash ?? '',
    change.failed ?? '',
    instance.gen,
  ];
  const names = [A.pk, A.sk, A.key, A.query, A.args, A.identity, A.deps, A.hash, A.failed, A.gen];
  const numbers = [A.ttl, A.version, A.rev];
  return (
    [...strings, ...names, ...numbers].reduce((sum, text) => sum + Buffer.byteLength(text), 0) +
    21 * numbers.length
  );
}

function toInstance(item: Item): InstanceItem {
  return {
    id: String(item[A.pk]).slice(2),
    key: item[A.key] as string,
    query: item[A.query] as string,
    args: item[A.args] as string,
    identity: parseJson(item[A.identity]) ?? undefined,
    version: Number(item[A.version] ?? 0),
    hash: item[A.hash] as string | undefined,
    failed: item[A.failed] as string | undefined,
    deps: decodeDeps(parseJson(item[A.deps])),
    rev: Number(item[A.rev] ?? 0),
    gen: item[A.gen] as string,
  };
}

/**
 * Dependencies as stored: actor id → `ver`, or `[ver, life]` for a record with a life (a plain
 * number is also how items written before lives hold them).
 */
function encodeDeps(deps: Readonly<Record<string, ReadPosition>>): string {
  const stored = Object.entries(deps).map(([id, at]) => [
    id,
    at.life === undefined ? at.ver : [at.ver, at.life],
  ]);
  return JSON.stringify(Object.fromEntries(stored));
}

function decodeDeps(stored: unknown): Record<string, ReadPosition> {
  const deps: Record<string, ReadPosition> = {};
  if (typeof stored !== 'object' || stored === null) return deps;
  for (const [id, at] of Object.entries(stored)) {
    if (typeof at === 'number') deps[id] = { ver: at };
    else if (Array.isArray(at) && typeof at[0] === 'number' && typeof at[1] === 'string') {
      deps[id] = { ver: at[0], life: at[1] };
    }
  }
  return deps;
}
