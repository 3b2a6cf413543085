import { describe, expectTypeOf, it } from 'vitest';
import * as z from 'zod';
import { actor, type ReplyOf } from './actor.ts';
import type { Client } from './client/Client.ts';
import type { JsonOf } from './jsonOf.ts';

describe('JsonOf', () => {
  it('keeps plain data as its own type', () => {
    expectTypeOf<JsonOf<number>>().toEqualTypeOf<number>();
    expectTypeOf<JsonOf<'closed'>>().toEqualTypeOf<'closed'>();
    expectTypeOf<JsonOf<string | null>>().toEqualTypeOf<string | null>();
    expectTypeOf<JsonOf<boolean>>().toEqualTypeOf<boolean>();
    expectTypeOf<JsonOf<{ n: number }>>().toEqualTypeOf<{ n: number }>();
    expectTypeOf<JsonOf<{ readonly n: number; tags: string[] }>>().toEqualTypeOf<{
      readonly n: number;
      tags: string[];
    }>();
    expectTypeOf<JsonOf<{ note?: string }>>().toEqualTypeOf<{ note?: string }>();
    expectTypeOf<JsonOf<readonly [number, string]>>().toEqualTypeOf<readonly [number, string]>();
    expectTypeOf<JsonOf<{ ok: true; n: number } | { ok: false; why: string }>>().toEqualTypeOf<
      { ok: true; n: number } | { ok: false; why: string }
    >();
    expectTypeOf<JsonOf<{ nested: { list: Array<{ a: number }> } }>>().toEqualTypeOf<{
      nested: { list: Array<{ a: number }> };
    }>();
    expectTypeOf<JsonOf<Record<string, number>>>().toEqualTypeOf<Record<string, number>>();
  });

  it('leaves any, unknown, undefined and void as they are', () => {
    expectTypeOf<JsonOf<unknown>>().toEqualTypeOf<unknown>();
    expectTypeOf<JsonOf<any>>().toBeAny();
    expectTypeOf<JsonOf<void>>().toEqualTypeOf<void>();
    expectTypeOf<JsonOf<undefined>>().toEqualTypeOf<undefined>();
    expectTypeOf<JsonOf<{ data: unknown }>>().toEqualTypeOf<{ data: unknown }>();
  });

  it('reads a Date as its ISO string, a Map or a Set as an empty object, and a BigInt as never', () => {
    expectTypeOf<JsonOf<Date>>().toEqualTypeOf<string>();
    expectTypeOf<JsonOf<{ at: Date | null }>>().toEqualTypeOf<{ at: string | null }>();
    expectTypeOf<JsonOf<Map<number, number>>>().toEqualTypeOf<Record<string, never>>();
    expectTypeOf<JsonOf<{ tags: Set<string> }>>().toEqualTypeOf<{
      tags: Record<string, never>;
    }>();
    expectTypeOf<JsonOf<bigint>>().toBeNever();
  });

  it('drops members that are undefined, functions or symbols, and makes a maybe-undefined member optional', () => {
    expectTypeOf<
      JsonOf<{ a: number; gone: undefined; run: () => void; s: symbol; maybe: number | undefined }>
    >().toEqualTypeOf<{ a: number; maybe?: number }>();
    expectTypeOf<JsonOf<Array<number | undefined>>>().toEqualTypeOf<Array<number | null>>();
  });
});

describe('the reply type of an ask', () => {
  const Clock = actor({
    name: 'clock',
    state: z.object({}),
    initial: () => ({}),
    handlers: {
      now: { payload: z.object({}), handle: () => new Date(0) },
      table: { payload: z.object({}), handle: () => new Map([[1, 2]]) },
      stamped: { payload: z.object({}), handle: async () => ({ at: new Date(0), n: 1 }) },
    },
  });
  const client = {} as Client;

  it('is the JSON form of what the handler returns: a Date as its ISO string, a Map as {}', async () => {
    expectTypeOf<ReplyOf<typeof Clock, 'now'>>().toEqualTypeOf<string>();
    expectTypeOf<ReplyOf<typeof Clock, 'stamped'>>().toEqualTypeOf<{ at: string; n: number }>();
    const now = await client.asSystem().ask(Clock.ref('a'), 'now', {});
    expectTypeOf(now).toEqualTypeOf<string>();
    // @ts-expect-error a reply read from JSON has no Date methods
    now.getTime();
    const table = await client.asSystem().ask(Clock.ref('a'), 'table', {});
    expectTypeOf(table).toEqualTypeOf<Record<string, never>>();
    // @ts-expect-error nor Map methods
    table.get(1);
  });
});
