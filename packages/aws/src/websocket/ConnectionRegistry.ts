import { randomUUID } from 'node:crypto';
import {
  type AttributeValue,
  DeleteItemCommand,
  type DynamoDBClient,
  ScanCommand,
  UpdateItemCommand,
} from '@aws-sdk/client-dynamodb';
import { marshall, unmarshall } from '@aws-sdk/util-dynamodb';
import type { Clock } from '@baton/core';
import {
  RegistryAttr as A,
  CONNECTION_SK,
  connectionPk,
  dependencyPk,
  INSTANCE_SK,
  instancePk,
  pendingPk,
  pendingSk,
  SUBSCRIPTION_PREFIX,
  subscriberSk,
  subscriptionSk,
} from './connectionsTable.ts';
import { RegistryTable } from './RegistryTable.ts';

/**
 * A connection as the registry holds it.
 *
 * @example
 * const connection: ConnectionItem = { connectionId: 'abc=', identity: { user: 'alice' }, expiresAt, endpoint };
 */
export interface ConnectionItem {
  readonly connectionId: string;
  readonly identity: unknown;
  /** The lease: the connection counts as gone after this (epoch ms) unless renewed. */
  readonly expiresAt: number;
  /** The management API endpoint to push to, `https://{domain}/{stage}`. */
  readonly endpoint: string;
}

/**
 * A shared query instance as the registry holds it.
 *
 * @example
 * const instance = await registry.getInstance(hashText(key)); // instance?.version, instance?.deps
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
  /** Actor id → the `ver` the last run read. */
  readonly deps: Readonly<Record<string, number>>;
  /** Write counter: updates are conditional on it, so concurrent handlers never go backwards. */
  readonly rev: number;
  /** Set when the item is created: tells dependency items of an older incarnation apart. */
  readonly gen: string;
}

/**
 * A request waiting for its message's outcome.
 *
 * @example
 * const pending: PendingItem = {
 *   connectionId: 'abc=', requestId: 'r1', kind: 'ask', actorId: 'account/alice',
 *   name: 'deposit', fingerprint: messageFingerprint('deposit', { amount: 5 }),
 * };
 */
export interface PendingItem {
  readonly connectionId: string;
  readonly requestId: string;
  readonly kind: 'ask' | 'visible';
  readonly actorId: string;
  /** The request's message name, for the error when its key was reused. */
  readonly name?: string | undefined;
  /**
   * The request's `messageFingerprint`: two requests may wait under one key with different
   * messages (the queue keeps only the first), and only the one matching the outcome's gets it.
   * Absent on items written without it, which are answered with the outcome as before.
   */
  readonly fingerprint?: string | undefined;
}

/**
 * A subscription: which connection, under which id, on which instance.
 *
 * @example
 * const subscription: SubscriptionRef = { connectionId: 'abc=', subscriptionId: 's1', instanceId };
 */
export interface SubscriptionRef {
  readonly connectionId: string;
  readonly subscriptionId: string;
  readonly instanceId: string;
}

/**
 * What a run changes on an instance.
 *
 * @example
 * const change: InstanceChange = { version: 2, hash, failed: undefined, deps: { 'account/alice': 3 } };
 */
export interface InstanceChange {
  readonly version: number;
  readonly hash: string | undefined;
  readonly failed: string | undefined;
  readonly deps: Readonly<Record<string, number>>;
}

/**
 * Options of a {@link ConnectionRegistry}.
 *
 * @example
 * const options: ConnectionRegistryOptions = { client: dynamodb, tableName: 'baton-connections' };
 */
export interface ConnectionRegistryOptions {
  readonly client: DynamoDBClient;
  readonly tableName: string;
  /** @default the system clock */
  readonly clock?: Clock;
  /** The longest a connection lives; items are given a TTL past it. @default 2 h */
  readonly maxConnectionMs?: number;
}

/** How long past its last possible use an item is kept before TTL may delete it. */
const TTL_GRACE_MS = 60 * 60_000;

/**
 * The WebSocket registry in DynamoDB (layout in `connectionsTable.ts`): connections with
 * leases, shared query instances with their subscribers and dependencies, pending requests.
 * DynamoDB failures become UNAVAILABLE BatonErrors.
 *
 * @example
 * const registry = new ConnectionRegistry({ client: dynamodb, tableName: 'baton-connections' });
 * await registry.putConnection({ connectionId, identity, expiresAt, endpoint });
 */
export class ConnectionRegistry {
  readonly #items: RegistryTable;
  readonly #now: () => number;
  readonly #maxConnectionMs: number;

  constructor(options: ConnectionRegistryOptions) {
    this.#items = new RegistryTable(options.client, options.tableName);
    this.#now = () => (options.clock ? options.clock.now() : Date.now());
    this.#maxConnectionMs = options.maxConnectionMs ?? 2 * 60 * 60_000;
  }

  /** The `ttl` (epoch seconds) of an item written now. */
  #ttl(): number {
    return Math.ceil((this.#now() + this.#maxConnectionMs + TTL_GRACE_MS) / 1000);
  }

  async putConnection(connection: ConnectionItem): Promise<void> {
    const { connectionId, identity, expiresAt, endpoint } = connection;
    await this.#items.put({
      [A.pk]: connectionPk(connectionId),
      [A.sk]: CONNECTION_SK,
      [A.identity]: identity === undefined ? undefined : JSON.stringify(identity),
      [A.expiresAt]: expiresAt,
      [A.endpoint]: endpoint,
      [A.ttl]: this.#ttl(),
    });
  }

  async getConnection(connectionId: string): Promise<ConnectionItem | undefined> {
    const item = await this.#items.get(connectionPk(connectionId), CONNECTION_SK);
    if (!item) return undefined;
    return {
      connectionId,
      identity: parseJson(item[A.identity]),
      expiresAt: item[A.expiresAt] as number,
      endpoint: item[A.endpoint] as string,
    };
  }

  /** Moves the lease to `expiresAt`; false if the connection is not registered (any more). */
  async renewConnection(connectionId: string, expiresAt: number): Promise<boolean> {
    return this.#items.write(
      'UpdateItem',
      new UpdateItemCommand({
        TableName: this.#items.name,
        Key: marshall({ [A.pk]: connectionPk(connectionId), [A.sk]: CONNECTION_SK }),
        UpdateExpression: 'SET #e = :e',
        ConditionExpression: 'attribute_exists(#pk)',
        ExpressionAttributeNames: { '#e': A.expiresAt, '#pk': A.pk },
        ExpressionAttributeValues: marshall({ ':e': expiresAt }),
      }),
    );
  }

  /** Connections whose lease lapsed before `now` (a scan: for the periodic sweeper). */
  async expiredConnections(now: number): Promise<string[]> {
    const ids: string[] = [];
    let start: Record<string, AttributeValue> | undefined;
    do {
      const page = await this.#items.call('Scan', () =>
        this.#items.client.send(
          new ScanCommand({
            TableName: this.#items.name,
            FilterExpression: '#sk = :c AND #e < :now',
            ExpressionAttributeNames: { '#sk': A.sk, '#e': A.expiresAt, '#pk': A.pk },
            ExpressionAttributeValues: marshall({ ':c': CONNECTION_SK, ':now': now }),
            ProjectionExpression: '#pk',
            ExclusiveStartKey: start,
          }),
        ),
      );
      for (const item of page.Items ?? []) ids.push(String(unmarshall(item)[A.pk]).slice(2));
      start = page.LastEvaluatedKey;
    } while (start);
    return ids;
  }

  /**
   * Removes a connection, its subscriptions, and the instances (with their dependencies) left
   * without subscribers. Idempotent.
   */
  async removeConnection(connectionId: string): Promise<void> {
    const items = await this.#items.query(connectionPk(connectionId));
    const instances = new Set<string>();
    await Promise.all(
      items.map(async (item) => {
        const sk = item[A.sk] as string;
        if (sk.startsWith(SUBSCRIPTION_PREFIX)) {
          const instanceId = item[A.instance] as string;
          instances.add(instanceId);
          const subscriptionId = item[A.subscriptionId] as string;
          await this.#items.delete(
            instancePk(instanceId),
            subscriberSk(connectionId, subscriptionId),
          );
        }
      }),
    );
    await Promise.all(
      items.map((item) => this.#items.delete(item[A.pk] as string, item[A.sk] as string)),
    );
    await Promise.all([...instances].map((id) => this.dropIfUnused(id)));
  }

  /**
   * Creates the instance if it is new, renews its TTL and bumps its `rev` (so that a concurrent
   * {@link dropIfUnused} does not delete it under a new subscriber); returns it as stored.
   */
  async upsertInstance(
    id: string,
    fields: Pick<InstanceItem, 'key' | 'query' | 'args' | 'identity'>,
  ): Promise<InstanceItem> {
    const output = await this.#items.call('UpdateItem', () =>
      this.#items.client.send(
        new UpdateItemCommand({
          TableName: this.#items.name,
          Key: marshall({ [A.pk]: instancePk(id), [A.sk]: INSTANCE_SK }),
          UpdateExpression:
            'SET #key = :key, #query = :query, #args = :args, #identity = :identity, #ttl = :ttl, ' +
            '#version = if_not_exists(#version, :zero), #deps = if_not_exists(#deps, :deps), ' +
            '#gen = if_not_exists(#gen, :gen) ADD #rev :one',
          ExpressionAttributeNames: {
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
          ExpressionAttributeValues: marshall({
            ':key': fields.key,
            ':query': fields.query,
            ':args': fields.args,
            ':identity': JSON.stringify(fields.identity ?? null),
            ':ttl': this.#ttl(),
            ':zero': 0,
            ':deps': '{}',
            ':gen': randomUUID(),
            ':one': 1,
          }),
          ReturnValues: 'ALL_NEW',
        }),
      ),
    );
    return toInstance(unmarshall(output.Attributes!));
  }

  async getInstance(id: string): Promise<InstanceItem | undefined> {
    const item = await this.#items.get(instancePk(id), INSTANCE_SK);
    return item ? toInstance(item) : undefined;
  }

  /**
   * Stores a run's result on condition that the instance is still at `instance.rev` and moves
   * its dependency items to the new reads. False if another handler wrote first or the instance
   * is gone (the caller reloads and runs again, or stops).
   */
  async saveRun(instance: InstanceItem, change: InstanceChange): Promise<boolean> {
    const names = {
      '#version': A.version,
      '#deps': A.deps,
      '#rev': A.rev,
      '#hash': A.hash,
      '#failed': A.failed,
    };
    const set = ['#version = :version', '#deps = :deps', '#rev = :next'];
    const remove: string[] = [];
    const values: Record<string, unknown> = {
      ':version': change.version,
      ':deps': JSON.stringify(change.deps),
      ':rev': instance.rev,
      ':next': instance.rev + 1,
    };
    for (const [name, value] of [
      ['hash', change.hash],
      ['failed', change.failed],
    ] as const) {
      if (value === undefined) remove.push(`#${name}`);
      else {
        set.push(`#${name} = :${name}`);
        values[`:${name}`] = value;
      }
    }
    const saved = await this.#items.write(
      'UpdateItem',
      new UpdateItemCommand({
        TableName: this.#items.name,
        Key: marshall({ [A.pk]: instancePk(instance.id), [A.sk]: INSTANCE_SK }),
        UpdateExpression: `SET ${set.join(', ')}${remove.length ? ` REMOVE ${remove.join(', ')}` : ''}`,
        ConditionExpression: '#rev = :rev',
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: marshall(values),
      }),
    );
    if (!saved) return false;
    const added = Object.keys(change.deps).filter((id) => !(id in instance.deps));
    const dropped = Object.keys(instance.deps).filter((id) => !(id in change.deps));
    await Promise.all([
      ...added.map((actorId) =>
        this.#items.put({
          [A.pk]: dependencyPk(actorId),
          [A.sk]: instance.id,
          [A.gen]: instance.gen,
        }),
      ),
      ...dropped.map((actorId) => this.removeDependency(actorId, instance.id, instance.gen)),
    ]);
    return true;
  }

  /** Ids of the instances that depend on `actorId`. */
  async dependents(actorId: string): Promise<string[]> {
    const items = await this.#items.query(dependencyPk(actorId));
    return items.map((item) => item[A.sk] as string);
  }

  /** Deletes a dependency item (only the one of incarnation `gen`, when given). */
  async removeDependency(actorId: string, instanceId: string, gen?: string): Promise<void> {
    await this.#items.delete(dependencyPk(actorId), instanceId, gen);
  }

  /** Records a subscription under its connection and under its instance. */
  async addSubscription(subscription: SubscriptionRef): Promise<void> {
    const { connectionId, subscriptionId, instanceId } = subscription;
    const common = {
      [A.connectionId]: connectionId,
      [A.subscriptionId]: subscriptionId,
      [A.instance]: instanceId,
      [A.ttl]: this.#ttl(),
    };
    await Promise.all([
      this.#items.put({
        [A.pk]: connectionPk(connectionId),
        [A.sk]: subscriptionSk(subscriptionId),
        ...common,
      }),
      this.#items.put({
        [A.pk]: instancePk(instanceId),
        [A.sk]: subscriberSk(connectionId, subscriptionId),
        ...common,
      }),
    ]);
  }

  /** The subscription `subscriptionId` of a connection, if it exists. */
  async getSubscription(
    connectionId: string,
    subscriptionId: string,
  ): Promise<SubscriptionRef | undefined> {
    const item = await this.#items.get(connectionPk(connectionId), subscriptionSk(subscriptionId));
    return item ? toSubscription(item) : undefined;
  }

  /** Removes one subscription, and its instance if it was the last subscriber. Idempotent. */
  async removeSubscription(connectionId: string, subscriptionId: string): Promise<void> {
    const found = await this.getSubscription(connectionId, subscriptionId);
    if (!found) return;
    await Promise.all([
      this.#items.delete(instancePk(found.instanceId), subscriberSk(connectionId, subscriptionId)),
      this.#items.delete(connectionPk(connectionId), subscriptionSk(subscriptionId)),
    ]);
    await this.dropIfUnused(found.instanceId);
  }

  async subscribers(instanceId: string): Promise<SubscriptionRef[]> {
    return (await this.#items.query(instancePk(instanceId), SUBSCRIPTION_PREFIX)).map(
      toSubscription,
    );
  }

  async subscriptionsOf(connectionId: string): Promise<SubscriptionRef[]> {
    return (await this.#items.query(connectionPk(connectionId), SUBSCRIPTION_PREFIX)).map(
      toSubscription,
    );
  }

  /**
   * Deletes an instance that has no subscriber left, with its dependency items. The delete is
   * conditional on the `rev` seen, so a subscriber arriving meanwhile keeps it.
   */
  async dropIfUnused(instanceId: string): Promise<void> {
    const instance = await this.getInstance(instanceId);
    if (!instance) return;
    if ((await this.#items.query(instancePk(instanceId), SUBSCRIPTION_PREFIX, 1)).length > 0)
      return;
    const deleted = await this.#items.write(
      'DeleteItem',
      new DeleteItemCommand({
        TableName: this.#items.name,
        Key: marshall({ [A.pk]: instancePk(instanceId), [A.sk]: INSTANCE_SK }),
        ConditionExpression: '#rev = :rev',
        ExpressionAttributeNames: { '#rev': A.rev },
        ExpressionAttributeValues: marshall({ ':rev': instance.rev }),
      }),
    );
    if (!deleted) return;
    await Promise.all(
      Object.keys(instance.deps).map((actorId) =>
        this.removeDependency(actorId, instanceId, instance.gen),
      ),
    );
  }

  /** Records a request that waits for the outcome of message `idempotencyKey`. */
  async putPending(idempotencyKey: string, pending: PendingItem): Promise<void> {
    await this.#items.put({
      [A.pk]: pendingPk(idempotencyKey),
      [A.sk]: pendingSk(pending.connectionId, pending.requestId),
      [A.connectionId]: pending.connectionId,
      [A.requestId]: pending.requestId,
      [A.kind]: pending.kind,
      [A.actorId]: pending.actorId,
      [A.name]: pending.name,
      [A.fingerprint]: pending.fingerprint,
      [A.ttl]: this.#ttl(),
    });
  }

  async deletePending(idempotencyKey: string, connectionId: string, requestId: string) {
    await this.#items.delete(pendingPk(idempotencyKey), pendingSk(connectionId, requestId));
  }

  /**
   * Removes and returns the requests waiting for `idempotencyKey`. Each is deleted on condition
   * that it still exists, so of two handlers taking it at once only one answers it.
   */
  async takePending(idempotencyKey: string): Promise<PendingItem[]> {
    const items = await this.#items.query(pendingPk(idempotencyKey));
    const taken = await Promise.all(
      items.map(async (item) => {
        const taken = await this.#items.write(
          'DeleteItem',
          new DeleteItemCommand({
            TableName: this.#items.name,
            Key: marshall({ [A.pk]: item[A.pk], [A.sk]: item[A.sk] }),
            ConditionExpression: 'attribute_exists(#pk)',
            ExpressionAttributeNames: { '#pk': A.pk },
          }),
        );
        if (!taken) return undefined;
        return {
          connectionId: item[A.connectionId] as string,
          requestId: item[A.requestId] as string,
          kind: item[A.kind] as PendingItem['kind'],
          actorId: item[A.actorId] as string,
          name: item[A.name] as string | undefined,
          fingerprint: item[A.fingerprint] as string | undefined,
        };
      }),
    );
    return taken.filter((pending) => pending !== undefined);
  }
}

function parseJson(value: unknown): unknown {
  return typeof value === 'string' ? JSON.parse(value) : undefined;
}

function toInstance(item: Record<string, unknown>): InstanceItem {
  return {
    id: String(item[A.pk]).slice(2),
    key: item[A.key] as string,
    query: item[A.query] as string,
    args: item[A.args] as string,
    identity: parseJson(item[A.identity]) ?? undefined,
    version: Number(item[A.version] ?? 0),
    hash: item[A.hash] as string | undefined,
    failed: item[A.failed] as string | undefined,
    deps: (parseJson(item[A.deps]) ?? {}) as Record<string, number>,
    rev: Number(item[A.rev] ?? 0),
    gen: item[A.gen] as string,
  };
}

function toSubscription(item: Record<string, unknown>): SubscriptionRef {
  return {
    connectionId: item[A.connectionId] as string,
    subscriptionId: item[A.subscriptionId] as string,
    instanceId: item[A.instance] as string,
  };
}
