import { describe, expect, it } from 'vitest';
import { shownPk } from '../connectionsTable.ts';
import { fresh, TEST_TTL, useConnectionsTable } from './fixtures/connectionsTableFixture.ts';
import { PendingRequests } from './PendingRequests.ts';
import { ShownWrites } from './ShownWrites.ts';

const { table, ttl } = useConnectionsTable();
const shown = new ShownWrites(table, ttl);

describe('ShownWrites', () => {
  it('remembers per connection and key, with a TTL, apart from the pending requests', async () => {
    const [connection, other] = [fresh('conn'), fresh('conn')];
    const key = fresh('ingress');
    const long = `${key}-${'é'.repeat(600)}`; // past a key part's 900 bytes
    await shown.add(connection, key);
    await shown.add(connection, long);
    expect(await shown.has(connection, key)).toBe(true);
    expect(await shown.has(connection, long)).toBe(true);
    expect(await shown.has(other, key)).toBe(false);
    expect(await shown.has(connection, fresh('ingress'))).toBe(false);
    expect((await table.query(shownPk(connection))).map((item) => item.ttl)).toEqual([
      TEST_TTL,
      TEST_TTL,
    ]);
    expect(await new PendingRequests(table, ttl).take(key)).toEqual([]);
  });

  it("forgets all of a connection's, and only its", async () => {
    const [connection, other] = [fresh('conn'), fresh('conn')];
    const keys = Array.from({ length: 20 }, () => fresh('ingress'));
    await Promise.all(keys.map((key) => shown.add(connection, key)));
    await shown.add(other, keys[0]!);
    await shown.removeAllOf(connection);
    expect(await table.query(shownPk(connection))).toEqual([]);
    expect(await shown.has(other, keys[0]!)).toBe(true);
    await shown.removeAllOf(connection);
  });
});
