import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { actor } from './actor.ts';
import { parseActorId } from './envelope.ts';
import { ErrorCode, isBatonError } from './errors.ts';

const options = {
  state: z.object({ n: z.number() }),
  initial: () => ({ n: 0 }),
  handlers: {
    add: {
      payload: z.object({ by: z.number() }),
      handle: (ctx: { state: { n: number } }, { by }: { by: number }) => {
        ctx.state.n += by;
      },
    },
  },
};

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (error) {
    return isBatonError(error) ? error.code : `not a BatonError: ${String(error)}`;
  }
  return undefined;
}

describe('actor', () => {
  it.each(['', '1counter', '-counter', 'counter/x', 'counter x', 'counter.x', 'zähler'])(
    'rejects the name %j with INVALID_ARGUMENT',
    (name) => {
      expect(codeOf(() => actor({ ...options, name }))).toBe(ErrorCode.INVALID_ARGUMENT);
    },
  );

  it.each(['counter', 'Counter', 'c', 'bank-account', 'bank_account2'])(
    'accepts the name %j',
    (name) => {
      expect(actor({ ...options, name }).name).toBe(name);
    },
  );

  it('keeps the options and marks the definition as an actor', () => {
    const Counter = actor({ ...options, name: 'counter' });
    expect(Counter.kind).toBe('actor');
    expect(Counter.state).toBe(options.state);
    expect(Counter.initial).toBe(options.initial);
    expect(Counter.handlers).toBe(options.handlers);
  });

  describe('ref', () => {
    const Counter = actor({ ...options, name: 'counter' });

    it('gives the type, the key and the id type/key', () => {
      const ref = Counter.ref('a');
      expect(ref).toEqual({ type: 'counter', key: 'a', id: 'counter/a' });
    });

    it('keeps slashes in the key, and the id parses back to the same type and key', () => {
      const ref = Counter.ref('team/a/b');
      expect(ref.id).toBe('counter/team/a/b');
      expect(parseActorId(ref.id)).toEqual({ type: 'counter', key: 'team/a/b' });
    });

    it('rejects an empty key with INVALID_REF', () => {
      expect(codeOf(() => Counter.ref(''))).toBe(ErrorCode.INVALID_REF);
    });

    it.each([undefined, null, 42, { key: 'a' }])('rejects the non-string key %j', (key) => {
      expect(codeOf(() => Counter.ref(key as unknown as string))).toBe(ErrorCode.INVALID_REF);
    });
  });
});
