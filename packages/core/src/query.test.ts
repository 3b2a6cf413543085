import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { actor } from './actor.ts';
import { createQueryContext } from './adapter/createQueryContext.ts';
import { ErrorCode, isBatonError } from './errors.ts';
import { MAX_NAME_LENGTH } from './limits.ts';
import { query } from './query.ts';

const Account = actor({
  name: 'account',
  state: z.object({ balance: z.number() }),
  initial: () => ({ balance: 0 }),
  handlers: {},
});

function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  throw new Error('expected a throw');
}

describe('query', () => {
  it('keeps the options and marks the definition as a query', () => {
    const args = z.object({ key: z.string() });
    const handler = async () => 1;
    const q = query({ name: 'bank.balance', args, handler });
    expect(q).toEqual({ name: 'bank.balance', args, handler, kind: 'query' });
  });

  it.each(['', '1x', '.x', 'a b', 'a/b'])('rejects the name %j with INVALID_ARGUMENT', (name) => {
    const error = thrown(() => query({ name, args: z.object({}), handler: () => 1 }));
    expect(isBatonError(error) && error.code).toBe(ErrorCode.INVALID_ARGUMENT);
  });

  it('rejects a name over MAX_NAME_LENGTH characters, which no client could send', () => {
    const name = 'q'.repeat(MAX_NAME_LENGTH);
    expect(query({ name, args: z.object({}), handler: () => 1 }).name).toBe(name);
    const error = thrown(() => query({ name: `${name}q`, args: z.object({}), handler: () => 1 }));
    expect(error).toMatchObject({ code: ErrorCode.INVALID_ARGUMENT });
    expect((error as Error).message).toMatch(/is too long: it is 129 characters long/);
  });

  it('rejects args that are not a zod schema and a missing handler', () => {
    const noSchema = thrown(() =>
      query({ name: 'q', args: {} as z.ZodObject, handler: () => 1 }),
    ) as Error;
    expect(noSchema.message).toContain('zod schema');
    const noHandler = thrown(() =>
      query({ name: 'q', args: z.object({}), handler: undefined as never }),
    ) as Error;
    expect(noHandler.message).toContain('needs a handler');
  });
});

describe('createQueryContext', () => {
  const ctx = createQueryContext({
    identity: { userId: 'u1' },
    get: async (ref) => ({ balance: ref.key.length }),
  });

  it('reads through get and carries the identity', async () => {
    expect(await ctx.get(Account.ref('alice'))).toEqual({ balance: 5 });
    expect(ctx.identity).toEqual({ userId: 'u1' });
  });

  it.each(['now', 'random', 'uuid', 'send'] as const)(
    'throws a clear INVALID_ARGUMENT when a query calls ctx.%s',
    (name) => {
      const error = thrown(() => (ctx[name] as () => unknown)());
      expect(isBatonError(error) && error.code).toBe(ErrorCode.INVALID_ARGUMENT);
      expect((error as Error).message).toContain(
        `queries are read-only and deterministic: ctx.${name} is not available in a query`,
      );
    },
  );

  it('tells a query that sends where to send from instead', () => {
    const error = thrown(() => ctx.send(Account.ref('a'), 'deposit', {})) as Error;
    expect(error.message).toContain('send from a client or an actor handler');
  });
});
