import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { Clock } from '@baton/core/adapter';
import { Connections } from './Connections.ts';
import { Instances } from './Instances.ts';
import { PendingRequests } from './PendingRequests.ts';
import { RegistryTable } from './RegistryTable.ts';
import { ShownWrites } from './ShownWrites.ts';
import { Subscriptions } from './Subscriptions.ts';

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
 * leases, shared query instances with their subscribers and dependencies, pending requests, the
 * writes a connection was shown. Each kind of item has its part — {@link Connections},
 * {@link Instances}, {@link Subscriptions}, {@link PendingRequests}, {@link ShownWrites} — which
 * callers use directly; this holds them on one table, and holds the operations that span parts:
 * removing a connection or a subscription drops the instances left unused. DynamoDB failures become UNAVAILABLE
 * BatonErrors.
 *
 * @example
 * const registry = new ConnectionRegistry({ client: dynamodb, tableName: 'baton-connections' });
 * await registry.connections.put({ connectionId, identity, expiresAt, endpoint });
 * await registry.removeSubscription(connectionId, 's1'); // and its instance, if it was the last
 */
export class ConnectionRegistry {
  readonly connections: Connections;
  readonly instances: Instances;
  readonly subscriptions: Subscriptions;
  readonly pending: PendingRequests;
  readonly shown: ShownWrites;

  constructor(options: ConnectionRegistryOptions) {
    const table = new RegistryTable(options.client, options.tableName);
    const maxConnectionMs = options.maxConnectionMs ?? 2 * 60 * 60_000;
    const now = () => (options.clock ? options.clock.now() : Date.now());
    /** The `ttl` (epoch seconds) of an item written now. */
    const ttl = () => Math.ceil((now() + maxConnectionMs + TTL_GRACE_MS) / 1000);
    this.connections = new Connections(table, ttl, now);
    this.instances = new Instances(table, ttl);
    this.subscriptions = new Subscriptions(table, ttl);
    this.pending = new PendingRequests(table, ttl);
    this.shown = new ShownWrites(table, ttl);
  }

  /**
   * Removes a connection, its subscriptions, the writes it was shown, and the instances (with
   * their dependencies) left without subscribers. Idempotent.
   */
  async removeConnection(connectionId: string): Promise<void> {
    const removed = await this.subscriptions.removeAllOf(connectionId);
    await this.shown.removeAllOf(connectionId);
    await this.connections.remove(connectionId);
    const instanceIds = new Set(removed.map((subscription) => subscription.instanceId));
    await Promise.all([...instanceIds].map((id) => this.dropIfUnused(id)));
  }

  /** Removes one subscription, and its instance if it was the last subscriber. Idempotent. */
  async removeSubscription(connectionId: string, subscriptionId: string): Promise<void> {
    const removed = await this.subscriptions.remove(connectionId, subscriptionId);
    if (removed) await this.dropIfUnused(removed.instanceId);
  }

  /**
   * Deletes an instance that has no subscriber left, with its dependency items. The delete is
   * conditional on the `rev` seen, so a subscriber arriving meanwhile keeps it.
   */
  async dropIfUnused(instanceId: string): Promise<void> {
    const instance = await this.instances.get(instanceId);
    if (!instance) return;
    if (await this.subscriptions.hasSubscribers(instanceId)) return;
    await this.instances.drop(instance);
  }
}
