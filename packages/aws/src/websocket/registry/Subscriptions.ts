import {
  RegistryAttr as A,
  connectionPk,
  instancePk,
  SUBSCRIPTION_PREFIX,
  subscriberSk,
  subscriptionSk,
} from '../connectionsTable.ts';
import type { Item, RegistryTable } from './RegistryTable.ts';

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
 * The subscriptions, each stored twice: under its connection (`C#<connection>` /
 * `S#<subscription>`, for `$disconnect` and resubscribing) and under its instance
 * (`Q#<instance>` / `S#<connection>#<subscription>`, for pushing to the subscribers).
 * Dropping an instance left without subscribers is the registry's, which knows both.
 *
 * @example
 * const subscriptions = new Subscriptions(table, ttl);
 * await subscriptions.add({ connectionId, subscriptionId: 's1', instanceId });
 */
export class Subscriptions {
  /**
   * @param ttl the `ttl` (epoch seconds) to give an item written now
   */
  constructor(
    private readonly table: RegistryTable,
    private readonly ttl: () => number,
  ) {}

  /** Records a subscription under its connection and under its instance. */
  async add(subscription: SubscriptionRef): Promise<void> {
    const { connectionId, subscriptionId, instanceId } = subscription;
    const common = {
      [A.connectionId]: connectionId,
      [A.subscriptionId]: subscriptionId,
      [A.instance]: instanceId,
      [A.ttl]: this.ttl(),
    };
    await Promise.all([
      this.table.put({
        [A.pk]: connectionPk(connectionId),
        [A.sk]: subscriptionSk(subscriptionId),
        ...common,
      }),
      this.table.put({
        [A.pk]: instancePk(instanceId),
        [A.sk]: subscriberSk(connectionId, subscriptionId),
        ...common,
      }),
    ]);
  }

  /** The subscription `subscriptionId` of a connection, if it exists. */
  async get(connectionId: string, subscriptionId: string): Promise<SubscriptionRef | undefined> {
    const item = await this.table.get(connectionPk(connectionId), subscriptionSk(subscriptionId));
    return item ? toSubscription(item) : undefined;
  }

  /** Removes one subscription, both sides at once; returns it, or `undefined` if there was none. */
  async remove(connectionId: string, subscriptionId: string): Promise<SubscriptionRef | undefined> {
    const found = await this.get(connectionId, subscriptionId);
    if (!found) return undefined;
    await Promise.all([
      this.table.delete(instancePk(found.instanceId), subscriberSk(connectionId, subscriptionId)),
      this.table.delete(connectionPk(connectionId), subscriptionSk(subscriptionId)),
    ]);
    return found;
  }

  /**
   * Removes every subscription of a connection and returns them. The instance side goes first:
   * if the handler dies in between, a retry still finds them under the connection.
   */
  async removeAllOf(connectionId: string): Promise<SubscriptionRef[]> {
    const subscriptions = await this.of(connectionId);
    await Promise.all(
      subscriptions.map(({ subscriptionId, instanceId }) =>
        this.table.delete(instancePk(instanceId), subscriberSk(connectionId, subscriptionId)),
      ),
    );
    await Promise.all(
      subscriptions.map(({ subscriptionId }) =>
        this.table.delete(connectionPk(connectionId), subscriptionSk(subscriptionId)),
      ),
    );
    return subscriptions;
  }

  /** The subscriptions on an instance. */
  async subscribers(instanceId: string): Promise<SubscriptionRef[]> {
    return (await this.table.query(instancePk(instanceId), SUBSCRIPTION_PREFIX)).map(
      toSubscription,
    );
  }

  /** Whether an instance has a subscriber (reads one item at most). */
  async hasSubscribers(instanceId: string): Promise<boolean> {
    return (await this.table.query(instancePk(instanceId), SUBSCRIPTION_PREFIX, 1)).length > 0;
  }

  /** The subscriptions of a connection. */
  async of(connectionId: string): Promise<SubscriptionRef[]> {
    return (await this.table.query(connectionPk(connectionId), SUBSCRIPTION_PREFIX)).map(
      toSubscription,
    );
  }
}

function toSubscription(item: Item): SubscriptionRef {
  return {
    connectionId: item[A.connectionId] as string,
    subscriptionId: item[A.subscriptionId] as string,
    instanceId: item[A.instance] as string,
  };
}
