import { describe, expect, it } from 'vitest';
import { pendingPk } from '../connectionsTable.ts';
import { fresh, TEST_TTL, useConnectionsTable } from './fixtures/connectionsTableFixture.ts';
import { type PendingItem, PendingRequests } from './PendingRequests.ts';
import { RegistryTable } from './RegistryTable.ts';

/** The table, counting its deletes in flight at once. */
class CountingTable extends RegistryTable {
  deleting = 0;
  mostDeleting = 0;

  override async delete(...args: Parameters<RegistryTable['delete']>): Promise<boolean> {
    this.deleting++;
    this.mostDeleting = Math.max(this.mostDeleting, this.deleting);
    try {
      return await super.delete(...args);
    } finally {
      this.deleting--;
    }
  }
}

const { dynamodb, tableName, ttl } = useConnectionsTable();
const table = new CountingTable(dynamodb, tableName);
const pending = new PendingRequests(table, ttl);

const request = (requestId: string, more: Partial<PendingItem> = {}): PendingItem => ({
  connectionId: 'c1',
  requestId,
  kind: 'ask',
  actorId: 'account/alice',
  name: undefined,
  fingerprint: undefined,
  ...more,
});

describe('PendingRequests', () => {
  it('takes every request waiting under a key, and deletes them', async () => {
    const key = fresh('ingress');
    const other = fresh('ingress');
    const waiting = [
      request('r1', { name: 'deposit', fingerprint: 'f1' }),
      request('r2', { kind: 'visible', connectionId: 'c2' }),
    ];
    await Promise.all([
      ...waiting.map((p) => pending.put(key, p)),
      pending.put(other, request('r3')),
    ]);
    const items = await table.query(pendingPk(key));
    expect(items.map((item) => item.ttl)).toEqual([TEST_TTL, TEST_TTL]);
    const taken = await pending.take(key);
    expect(taken).toHaveLength(2);
    expect(taken).toEqual(expect.arrayContaining(waiting));
    expect(await table.query(pendingPk(key))).toEqual([]);
    expect(await pending.take(key)).toEqual([]);
    expect(await pending.take(other)).toEqual([request('r3')]);
  });

  it('gives each request to one of two handlers taking at once', async () => {
    const key = fresh('ingress');
    const ids = Array.from({ length: 8 }, (_, i) => `r${i}`);
    await Promise.all(ids.map((id) => pending.put(key, request(id))));
    const [a, b] = await Promise.all([pending.take(key), pending.take(key)]);
    const answered = [...a, ...b].map((p) => p.requestId).sort();
    expect(answered).toEqual(ids);
  });

  it('deletes one request', async () => {
    const key = fresh('ingress');
    await Promise.all([pending.put(key, request('r1')), pending.put(key, request('r2'))]);
    await pending.delete(key, 'c1', 'r1');
    expect(await pending.take(key)).toEqual([request('r2')]);
  });

  it('takes many requests with a few deletes at a time', async () => {
    const key = fresh('ingress');
    const ids = Array.from({ length: 60 }, (_, i) => `r${i}`);
    await Promise.all(ids.map((id) => pending.put(key, request(id))));
    table.mostDeleting = 0;
    const taken = await pending.take(key);
    expect(taken.map((p) => p.requestId).sort()).toEqual([...ids].sort());
    expect(table.mostDeleting).toBeLessThanOrEqual(16);
  });

  it("lists one connection's requests under a key past the newest few, oldest first, long request ids too", async () => {
    const key = fresh('ingress');
    const long = 'é'.repeat(600); // 1,200 bytes: its sort key holds its digest
    await pending.put(key, request('r1'));
    await new Promise((resolve) => setTimeout(resolve, 5));
    await pending.put(key, request(long));
    await Promise.all([
      pending.put(key, request('r3', { connectionId: 'c10' })), // c1's id is its prefix
      pending.put(key, request('r4', { connectionId: 'c2' })),
      pending.put(fresh('ingress'), request('r5')),
    ]);
    const ids = async (connectionId: string, keep: number) =>
      (await pending.beyond(key, connectionId, keep)).map((r) => r.requestId);
    expect(await ids('c1', 2)).toEqual([]);
    expect(await ids('c1', 1)).toEqual(['r1']);
    expect(await ids('c1', 0)).toEqual(['r1', long]);
    expect(await ids('c2', 0)).toEqual(['r4']);
    expect(await ids('c3', 0)).toEqual([]);
    await pending.delete(key, 'c1', long);
    expect(await ids('c1', 0)).toEqual(['r1']);
  });
});
