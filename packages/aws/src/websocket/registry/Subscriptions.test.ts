import { describe, expect, it } from 'vitest';
import { connectionPk, instancePk } from '../connectionsTable.ts';
import { fresh, TEST_TTL, useConnectionsTable } from './fixtures/connectionsTableFixture.ts';
import { type SubscriptionRef, Subscriptions } from './Subscriptions.ts';

const { table, ttl } = useConnectionsTable();
const subscriptions = new Subscriptions(table, ttl);

const ref = (connectionId: string, instanceId: string, subscriptionId = fresh('s')) =>
  ({ connectionId, subscriptionId, instanceId }) satisfies SubscriptionRef;

describe('Subscriptions', () => {
  it('records a subscription under its connection and under its instance, with a TTL', async () => {
    const s = ref(fresh('conn'), fresh('inst'));
    await subscriptions.add(s);
    expect(await subscriptions.get(s.connectionId, s.subscriptionId)).toEqual(s);
    expect(await subscriptions.of(s.connectionId)).toEqual([s]);
    expect(await subscriptions.subscribers(s.instanceId)).toEqual([s]);
    expect(await subscriptions.hasSubscribers(s.instanceId)).toBe(true);
    const items = [
      ...(await table.query(connectionPk(s.connectionId))),
      ...(await table.query(instancePk(s.instanceId))),
    ];
    expect(items.map((item) => item.ttl)).toEqual([TEST_TTL, TEST_TTL]);
  });

  it('lists the subscribers of an instance across connections', async () => {
    const instanceId = fresh('inst');
    const [a, b] = [ref(fresh('conn'), instanceId), ref(fresh('conn'), instanceId)];
    await Promise.all([subscriptions.add(a), subscriptions.add(b)]);
    const subscribers = await subscriptions.subscribers(instanceId);
    expect(subscribers).toHaveLength(2);
    expect(subscribers).toEqual(expect.arrayContaining([a, b]));
    expect(await subscriptions.hasSubscribers(fresh('inst'))).toBe(false);
  });

  it('removes one subscription from both sides and returns it', async () => {
    const connectionId = fresh('conn');
    const [gone, kept] = [ref(connectionId, fresh('inst')), ref(connectionId, fresh('inst'))];
    await Promise.all([subscriptions.add(gone), subscriptions.add(kept)]);
    expect(await subscriptions.remove(connectionId, gone.subscriptionId)).toEqual(gone);
    expect(await subscriptions.get(connectionId, gone.subscriptionId)).toBeUndefined();
    expect(await subscriptions.hasSubscribers(gone.instanceId)).toBe(false);
    expect(await subscriptions.of(connectionId)).toEqual([kept]);
    expect(await subscriptions.remove(connectionId, gone.subscriptionId)).toBeUndefined();
  });

  it("removes every subscription of a connection, and no other connection's", async () => {
    const [connectionId, other] = [fresh('conn'), fresh('conn')];
    const instanceId = fresh('inst');
    const mine = [ref(connectionId, instanceId), ref(connectionId, fresh('inst'))];
    const theirs = ref(other, instanceId);
    await Promise.all([...mine, theirs].map((s) => subscriptions.add(s)));
    const removed = await subscriptions.removeAllOf(connectionId);
    expect(removed).toHaveLength(2);
    expect(removed).toEqual(expect.arrayContaining(mine));
    expect(await table.query(connectionPk(connectionId))).toEqual([]);
    expect(await subscriptions.subscribers(instanceId)).toEqual([theirs]);
    expect(await subscriptions.hasSubscribers(mine[1]!.instanceId)).toBe(false);
  });
});
