import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { actor } from './actor.ts';
import { effect } from './effect.ts';
import { type BatonError, ErrorCode, isBatonError } from './errors.ts';
import { MAX_ACTOR_KEY_BYTES } from './limits.ts';
import { Registry } from './registry.ts';

const Account = actor({
  name: 'account',
  state: z.object({ balance: z.number() }),
  initial: () => ({ balance: 0 }),
  handlers: {
    deposit: {
      payload: z.object({ amount: z.number().positive() }),
      handle: (ctx, { amount }) => {
        ctx.state.balance += amount;
      },
    },
    transfer: {
      payload: z.object({
        to: z.object({ key: z.string() }),
        amount: z.number().positive(),
        tags: z.array(z.string()).default([]),
      }),
      handle: () => undefined,
    },
  },
});

const Counter = actor({
  name: 'counter',
  state: z.object({ n: z.number() }),
  initial: () => ({ n: 0 }),
  handlers: { add: { payload: z.object({}), handle: () => undefined } },
});

/** Runs `fn` and returns the BatonError it throws. */
function thrown(fn: () => unknown): BatonError {
  try {
    fn();
  } catch (error) {
    if (isBatonError(error)) return error;
    throw error;
  }
  throw new Error('expected a BatonError, but nothing was thrown');
}

describe('Registry', () => {
  const registry = new Registry([Account, Counter]);

  it('lists its actor types and finds a definition by name', () => {
    expect(registry.types).toEqual(['account', 'counter']);
    expect(registry.definition('counter')).toBe(Counter);
  });

  it('rejects two actor types with the same name', () => {
    const copy = actor({ ...Counter, name: 'counter' });
    const error = thrown(() => new Registry([Counter, Account, copy]));
    expect(error.code).toBe(ErrorCode.INVALID_ARGUMENT);
    expect(error.message).toContain('"counter"');
  });

  it('rejects two effects with the same name, as it does two actor types', () => {
    const receipt = effect({ name: 'receipt', payload: z.object({}), run: async () => {} });
    const error = thrown(() => new Registry([Account], [receipt, { ...receipt }]));
    expect(error.code).toBe(ErrorCode.INVALID_ARGUMENT);
    expect(error.message).toBe('two effects are named "receipt": give each a unique name');
  });

  it('throws UNKNOWN_ACTOR for a type it does not hold, naming the known ones', () => {
    const error = thrown(() => registry.definition('ghost'));
    expect(error.code).toBe(ErrorCode.UNKNOWN_ACTOR);
    expect(error.terminal).toBe(true);
    expect(error.details).toEqual({ type: 'ghost' });
    expect(error.message).toContain('account, counter');
  });

  it('throws UNKNOWN_ACTOR when resolving a message to an unknown type', () => {
    expect(thrown(() => registry.resolve('ghost/1', 'deposit', { amount: 1 })).code).toBe(
      ErrorCode.UNKNOWN_ACTOR,
    );
  });

  it('throws UNKNOWN_MESSAGE for a message name the type has no handler for', () => {
    const error = thrown(() => registry.resolve('account/alice', 'withdraw', { amount: 1 }));
    expect(error.code).toBe(ErrorCode.UNKNOWN_MESSAGE);
    expect(error.terminal).toBe(true);
    expect(error.details).toEqual({ type: 'account', name: 'withdraw' });
    expect(error.message).toContain('deposit, transfer');
  });

  it('does not take inherited object properties for handlers', () => {
    for (const name of ['toString', 'constructor', '__proto__', 'hasOwnProperty']) {
      expect(thrown(() => registry.resolve('account/alice', name, {})).code).toBe(
        ErrorCode.UNKNOWN_MESSAGE,
      );
    }
  });

  it('throws INVALID_REF for an id that is not type/key', () => {
    for (const id of ['account', '/alice', 'account/', '']) {
      expect(thrown(() => registry.resolve(id, 'deposit', { amount: 1 })).code).toBe(
        ErrorCode.INVALID_REF,
      );
    }
  });

  it('throws INVALID_REF for an id whose key passes MAX_ACTOR_KEY_BYTES, before any handler', () => {
    const long = `account/${'k'.repeat(600_000)}`;
    const error = thrown(() => registry.resolve(long, 'deposit', { amount: 1 }));
    expect(error.code).toBe(ErrorCode.INVALID_REF);
    expect(error.details).toEqual({ type: 'account', limit: MAX_ACTOR_KEY_BYTES, actual: 600_000 });
    expect(error.message).toContain('600000 UTF-8 bytes');
    // The message names the actor type, not the 600,000-character key.
    expect(error.message.length).toBeLessThan(500);
    const justOver = `account/${'é'.repeat(MAX_ACTOR_KEY_BYTES / 2)}x`;
    expect(thrown(() => registry.resolve(justOver, 'deposit', { amount: 1 })).code).toBe(
      ErrorCode.INVALID_REF,
    );
  });

  it('resolves an id whose key is exactly MAX_ACTOR_KEY_BYTES long', () => {
    const key = 'é'.repeat(MAX_ACTOR_KEY_BYTES / 2);
    expect(registry.resolve(`account/${key}`, 'deposit', { amount: 1 }).key).toBe(key);
  });

  it('throws INVALID_REF for an id that is not a string', () => {
    for (const id of [undefined, 42, { id: 'account/alice' }]) {
      expect(thrown(() => registry.resolve(id as unknown as string, 'deposit', {})).code).toBe(
        ErrorCode.INVALID_REF,
      );
    }
  });

  it('names the failing field as payload.amount for an invalid payload', () => {
    const error = thrown(() => registry.resolve('account/alice', 'deposit', { amount: -5 }));
    expect(error.code).toBe(ErrorCode.INVALID_PAYLOAD);
    expect(error.terminal).toBe(true);
    expect(error.message).toContain('payload.amount');
    expect(error.details.issues).toEqual([{ path: 'payload.amount', message: expect.any(String) }]);
    expect(error.details).toMatchObject({ to: 'account/alice', name: 'deposit' });
  });

  it('names nested and array fields by their full path', () => {
    const error = thrown(() =>
      registry.resolve('account/alice', 'transfer', {
        to: { key: 7 },
        amount: 1,
        tags: ['ok', 3],
      }),
    );
    const paths = (error.details.issues as { path: string }[]).map((issue) => issue.path);
    expect(paths.sort()).toEqual(['payload.tags.1', 'payload.to.key']);
  });

  it('names the payload itself when it is missing', () => {
    const error = thrown(() => registry.resolve('account/alice', 'deposit', undefined));
    expect(error.code).toBe(ErrorCode.INVALID_PAYLOAD);
    expect((error.details.issues as { path: string }[])[0]?.path).toBe('payload');
  });

  it('resolves a valid message to its definition, key, handler and parsed payload', () => {
    const resolved = registry.resolve('account/team/alice', 'transfer', {
      to: { key: 'bob' },
      amount: 2,
    });
    expect(resolved.definition).toBe(Account);
    expect(resolved.key).toBe('team/alice');
    expect(resolved.handler).toBe(Account.handlers.transfer);
    expect(resolved.payload).toEqual({ to: { key: 'bob' }, amount: 2, tags: [] });
  });
});
