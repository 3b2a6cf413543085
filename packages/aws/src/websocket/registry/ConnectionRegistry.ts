import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { Clock } from '@baton/core/adapter';
import { type ConnectionItem, Connections } from './Connections.ts';
import { type InstanceChange, type InstanceItem, Instances } from './Instances.ts';
import { type PendingItem, PendingRequests } from './PendingRequests.ts';
import { RegistryTable } from './RegistryTable.ts';
import { type SubscriptionRef, Subscriptions } from './Subscriptions.ts';

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
 * Each kind of item has its part ({@link Connections}, {@link Instances},
 * {@link Subscriptions}, {@link PendingRequests}); this composes them, and holds the operations
 * that span parts: removing a connection or a subscription drops the instances left unused.
 * DynamoDB failures become UNAVAILABLE BatonErrors.
 *
 * @example
 * const registry = new ConnectionRegistry({ client: dynamodb, tableName: 'baton-connections' });
 * await registry.putConnection({ connectionId, identity, expiresAt, endpoint });
 */
export class ConnectionRegistry {
  readonly #connections: Connections;
  readonly #instances: Instances;
  readonly #subscriptions: Subscriptions;
  readonly #pending: PendingRequests;

  constructor(options: ConnectionRegistryOptions) {
    const table = new RegistryTable(options.client, options.tableName);
    const maxConnectionMs = options.maxConnectionMs ?? 2 * 60 * 60_000;
    const now = () => (options.clock ? options.clock.now() : Date.now());
    /** The `ttl` (epoch seconds) of an item written now. */
    const ttl = () => Math.ceil((now() + maxConnectionMs + TTL_GRACE_MS) / 1000);
    this.#connections = new Connections(table, ttl);
    this.#instances = new Instances(table, ttl);
    this.#subscriptions = new Subscriptions(table, ttl);
    this.#pending = new PendingRequests(table, ttl);
  }

  putConnection(connection: ConnectionItem): Promise<void> {
    return this.#connections.put(connection);
  }

  getConnection(connectionId: string): Promise<ConnectionItem | undefined> {
    return this.#connections.get(connectionId);
  }

  /** Moves the lease to `expiresAt`; false if the connection is not registered (any more). */
  renewConnection(connectionId: string, expiresAt: number): Promise<boolean> {
    return this.#connections.renew(connectionId, expiresAt);
  }

  /** Connections whose lease lapsed before `now` (a scan: for the periodic sweeper). */
  expiredConnections(now: number): Promise<string[]> {
    return this.#connections.expired(now);
  }

  /**
   * Removes a connection, its subscriptions, and the instances (with their dependencies) left
   * without subscribers. Idempotent.
   */
  async removeConnection(connectionId: string): Promise<void> {
    const removed = await this.#subscriptions.removeAllOf(connectionId);
    await this.#connections.remove(connectionId);
    const instanceIds = new Set(removed.map((subscription) => subscription.instanceId));
    await Promise.all([...instanceIds].map((id) => this.dropIfUnused(id)));
  }

  /**
   * Creates the instance if it is new, renews its TTL and bumps its `rev` (so that a concurrent
   * {@link dropIfUnused} does not delete it under a new subscriber); returns it as stored.
   */
  upsertInstance(
    id: string,
    fields: Pick<InstanceItem, 'key' | 'query' | 'args' | 'identity'>,
  ): Promise<InstanceItem> {
    return this.#instances.upsert(id, fields);
  }

  getInstance(id: string): Promise<InstanceItem | undefined> {
    return this.#instances.get(id);
  }

  /**
   * Stores a run's result on condition that the instance is still at `instance.rev` and moves
   * its dependency items to the new reads. False if another handler wrote first or the instance
   * is gone (the caller reloads and runs again, or stops).
   */
  saveRun(instance: InstanceItem, change: InstanceChange): Promise<boolean> {
    return this.#instances.saveRun(instance, change);
  }

  /** Ids of the instances that depend on `actorId`. */
  dependents(actorId: string): Promise<string[]> {
    return this.#instances.dependents(actorId);
  }

  /** Deletes a dependency item (only the one of incarnation `gen`, when given). */
  removeDependency(actorId: string, instanceId: string, gen?: string): Promise<void> {
    return this.#instances.removeDependency(actorId, instanceId, gen);
  }

  /**
   * Deletes an instance that has no subscriber left, with its dependency items. The delete is
   * conditional on the `rev` seen, so a subscriber arriving meanwhile keeps it.
   */
  async dropIfUnused(instanceId: string): Promise<void> {
    const instance = await this.#instances.get(instanceId);
    if (!instance) return;
    if (await this.#subscriptions.hasSubscribers(instanceId)) return;
    await this.#instances.drop(instance);
  }

  /** Records a subscription under its connection and under its instance. */
  addSubscription(subscription: SubscriptionRef): Promise<void> {
    return this.#subscriptions.add(subscription);
  }

  /** The subscription `subscriptionId` of a connection, if it exists. */
  getSubscription(connectionId: string, subscriptionId: string) {
    return this.#subscriptions.get(connectionId, subscriptionId);
  }

  /** Removes one subscription, and its instance if it was the last subscriber. Idempotent. */
  async removeSubscription(connectionId: string, subscriptionId: string): Promise<void> {
    const removed = await this.#subscriptions.remove(connectionId, subscriptionId);
    if (removed) await this.dropIfUnused(removed.instanceId);
  }

  subscribers(instanceId: string): Promise<SubscriptionRef[]> {
    return this.#subscriptions.subscribers(instanceId);
  }

  /** Counts a frame of the connection in second `second`; false once past `max` in it. */
  countFrame(connectionId: string, second: number, max: number): Promise<boolean> {
    return this.#connections.countFrame(connectionId, second, max);
  }

  subscriptionsOf(connectionId: string): Promise<SubscriptionRef[]> {
    return this.#subscriptions.of(connectionId);
  }

  /** Records a request that waits for the outcome of message `idempotencyKey`. */
  putPending(idempotencyKey: string, pending: PendingItem): Promise<void> {
    return this.#pending.put(idempotencyKey, pending);
  }

  deletePending(idempotencyKey: string, connectionId: string, requestId: string): Promise<void> {
    return this.#pending.delete(idempotencyKey, connectionId, requestId);
  }

  /**
   * Removes and returns the requests waiting for `idempotencyKey`. Each is deleted on condition
   * that it still exists, so of two handlers taking it at once only one answers it.
   */
  takePending(idempotencyKey: string): Promise<PendingItem[]> {
    return this.#pending.take(idempotencyKey);
  }
}
