import { GetItemCommand } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { ErrorCode, isBatonError } from '@baton/core';
import { describe, expect, it } from 'vitest';
import { fresh, useConnectionsTable } from './fixtures/connectionsTableFixture.ts';
import { type Expression, RegistryTable } from './RegistryTable.ts';

const { dynamodb, tableName, table } = useConnectionsTable();

/** The item as stored, read past the code under test. */
async function stored(pk: string, sk: string) {
  const { Item } = await dynamodb.send(
    new GetItemCommand({
      TableName: tableName,
      Key: { pk: { S: pk }, sk: { S: sk } },
      ConsistentRead: true,
    }),
  );
  return Item ? unmarshall(Item) : undefined;
}

const revIs = (rev: number): Expression => ({
  expression: '#rev = :rev',
  names: { '#rev': 'rev' },
  values: { ':rev': rev },
});

describe('RegistryTable', () => {
  it('puts an item without its undefined attributes and gets it back', async () => {
    const pk = fresh('P');
    await table.put({ pk, sk: 'x', n: 1, gone: undefined });
    expect(await stored(pk, 'x')).toEqual({ pk, sk: 'x', n: 1 });
    expect(await table.get(pk, 'x')).toEqual({ pk, sk: 'x', n: 1 });
    expect(await table.get(pk, 'missing')).toBeUndefined();
  });

  it('answers false to an update whose condition fails, and leaves the item as it was', async () => {
    const pk = fresh('P');
    await table.put({ pk, sk: 'x', rev: 2 });
    const bump: Expression = {
      expression: 'SET #rev = :next',
      names: { '#rev': 'rev' },
      values: { ':next': 3 },
    };
    expect(await table.update(pk, 'x', bump, revIs(1))).toBe(false);
    expect(await stored(pk, 'x')).toEqual({ pk, sk: 'x', rev: 2 });
    expect(await table.update(pk, 'x', bump, revIs(2))).toBe(true);
    expect(await stored(pk, 'x')).toEqual({ pk, sk: 'x', rev: 3 });
  });

  it('returns the item as stored after an unconditional update', async () => {
    const pk = fresh('P');
    const item = await table.updateReturning(pk, 'x', {
      expression: 'ADD #n :one',
      names: { '#n': 'n' },
      values: { ':one': 1 },
    });
    expect(item).toEqual({ pk, sk: 'x', n: 1 });
  });

  it('deletes on condition only, and deletes a missing item without complaint', async () => {
    const pk = fresh('P');
    await table.put({ pk, sk: 'x', rev: 1 });
    expect(await table.delete(pk, 'x', revIs(2))).toBe(false);
    expect(await stored(pk, 'x')).toBeDefined();
    expect(await table.delete(pk, 'x', revIs(1))).toBe(true);
    expect(await stored(pk, 'x')).toBeUndefined();
    expect(await table.delete(pk, 'x')).toBe(true);
  });

  it('queries a partition, by sort key prefix and up to a limit', async () => {
    const pk = fresh('P');
    await Promise.all(['S#a', 'S#b', 'T#c'].map((sk) => table.put({ pk, sk })));
    const sks = async (prefix?: string, limit?: number) =>
      (await table.query(pk, prefix, limit)).map((item) => item.sk);
    expect(await sks()).toEqual(['S#a', 'S#b', 'T#c']);
    expect(await sks('S#')).toEqual(['S#a', 'S#b']);
    expect(await sks('S#', 1)).toEqual(['S#a']);
  });

  it('scans for the items matching a filter, projected', async () => {
    const mark = fresh('mark');
    const pks = [fresh('P'), fresh('P')];
    await Promise.all([
      ...pks.map((pk) => table.put({ pk, sk: 'x', mark })),
      table.put({ pk: fresh('P'), sk: 'x' }),
    ]);
    const found = await table.scan(
      {
        expression: '#mark = :mark',
        names: { '#mark': 'mark', '#pk': 'pk' },
        values: { ':mark': mark },
      },
      '#pk',
    );
    expect(found.sort((a, b) => String(a.pk).localeCompare(String(b.pk)))).toEqual(
      pks.sort().map((pk) => ({ pk })),
    );
  });

  it('turns any other DynamoDB failure into UNAVAILABLE', async () => {
    const missing = new RegistryTable(dynamodb, fresh('no-such-table'));
    const error = await missing.get('p', 's').catch((e: unknown) => e);
    expect(isBatonError(error) && error.code).toBe(ErrorCode.UNAVAILABLE);
    expect(isBatonError(error) && error.details).toMatchObject({
      service: 'DynamoDB',
      operation: 'GetItem',
      awsError: 'ResourceNotFoundException',
    });
    // Conditional writes answer false only to a failed condition.
    await expect(missing.delete('p', 's', revIs(1))).rejects.toMatchObject({
      code: ErrorCode.UNAVAILABLE,
    });
  });
});
