/**
 * An instance's item stays within DynamoDB's item limit: `instanceItemBytes` counts it as
 * DynamoDB does (checked against DynamoDB Local on both sides of the limit), and a run whose
 * item would pass `MAX_INSTANCE_ITEM_BYTES` is stored as a LIMIT_EXCEEDED failure with no
 * dependencies, not refused as a write (which would fail every stream batch its reads are in).
 */
import { actor, ErrorCode, query } from '@baton/core';
import { Registry } from '@baton/core/adapter';
import type { ReadPosition } from '@baton/server/evaluation';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { refreshInstance } from '../refreshInstance.ts';
import type { ReactiveContext } from '../WebSocketOptions.ts';
import { fresh, useConnectionsTable } from './fixtures/connectionsTableFixture.ts';
import {
  type InstanceItem,
  Instances,
  instanceItemBytes,
  MAX_INSTANCE_ITEM_BYTES,
} from './Instances.ts';

const { table, ttl } = useConnectionsTable();
const instances = new Instances(table, ttl);
/** DynamoDB's limit on an item: 400 KB, names and values. */
const DYNAMODB_ITEM_BYTES = 400 * 1024;

const create = (identity: unknown): Promise<InstanceItem> =>
  instances.upsert(fresh('inst'), {
    key: '["balance","{\\"account\\":\\"alice\\"}","alice"]',
    query: 'balance',
    args: '{"account":"alice"}',
    identity,
  });

/** Dependencies on `count` actors with ids of 60 bytes, each read at a version and a life. */
const deps = (count: number): Record<string, ReadPosition> =>
  Object.fromEntries(
    Array.from({ length: count }, (_, n) => [
      `account/${String(n).padStart(52, '0')}`,
      { ver: 12, life: 'k3x9q0m2a7bz' },
    ]),
  );
const change = (reads: Record<string, ReadPosition>) => ({
  version: 1,
  hash: 'h'.repeat(43),
  failed: undefined,
  deps: reads,
});

describe("an instance's item size", () => {
  it('is counted as DynamoDB counts it: an item just under the limit is written, just over is not', async () => {
    const instance = await create({ user: 'alice' });
    // 60-byte ids read at [12, life]: 82 bytes a dependency in the stored JSON.
    const perDep =
      instanceItemBytes(instance, change(deps(2))) - instanceItemBytes(instance, change(deps(1)));
    const base = instanceItemBytes(instance, change({}));
    const under = Math.floor((DYNAMODB_ITEM_BYTES - base) / perDep) - 1;
    expect(instanceItemBytes(instance, change(deps(under)))).toBeLessThanOrEqual(
      DYNAMODB_ITEM_BYTES,
    );
    expect(await instances.saveRun(instance, change(deps(under)))).toBe(true);

    const again = (await instances.get(instance.id))!;
    const over = under + 3;
    expect(instanceItemBytes(again, change(deps(over)))).toBeGreaterThan(DYNAMODB_ITEM_BYTES);
    await expect(instances.saveRun(again, change(deps(over)))).rejects.toMatchObject({
      code: ErrorCode.UNAVAILABLE,
    });
  });

  it('fails a run that would pass the limit with LIMIT_EXCEEDED, kept with no dependencies', async () => {
    const Account = actor({
      name: 'account',
      state: z.object({ balance: z.number() }),
      initial: () => ({ balance: 0 }),
      handlers: {},
    });
    const balance = query({
      name: 'balance',
      args: z.object({ account: z.string() }),
      handler: async (ctx, { account }) => (await ctx.get(Account.ref(account))).balance,
    });
    const context = {
      queries: new Map([[balance.name, balance]]),
      // No account has committed: the run reads each at version 0.
      env: { registry: new Registry([Account]), store: { load: async () => undefined } },
      registry: { instances },
      logger: { error() {} },
    } as unknown as ReactiveContext;

    // An identity as large as an app's claims may make it: what the run read no longer fits.
    const large = await create({ user: 'alice', claims: 'c'.repeat(MAX_INSTANCE_ITEM_BYTES) });
    const refreshed = await refreshInstance(context, large);
    expect(refreshed?.update).toMatchObject({
      kind: 'error',
      error: { code: ErrorCode.LIMIT_EXCEEDED, message: expect.stringContaining('read 1 actors') },
    });
    expect((await instances.get(large.id))?.deps).toEqual({});

    // The same query with an ordinary identity runs and keeps what it read.
    const small = await create({ user: 'alice' });
    expect((await refreshInstance(context, small))?.update).toMatchObject({
      kind: 'result',
      value: 0,
    });
    expect(Object.keys((await instances.get(small.id))!.deps)).toEqual(['account/alice']);
  });
});
