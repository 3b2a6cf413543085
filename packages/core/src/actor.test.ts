import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import * as zm from 'zod/mini';
import { actor } from './actor.ts';
import { type BatonError, ErrorCode, isBatonError } from './errors.ts';
import { MAX_ACTOR_KEY_BYTES, MAX_NAME_LENGTH } from './limits.ts';
import { parseActorId } from './shared/actorId.ts';
import { storedInstanceRef, workflow } from './workflow/workflow.ts';

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

  it('refuses a name with the prefix of workflows’ actors, which a workflow’s still takes', () => {
    // An operator may not cancel a timer of a `wf-` actor: Baton keeps them for its workflows.
    expect(() => actor({ ...options, name: 'wf-shift' })).toThrow(
      /actor name "wf-shift" is reserved: "wf-" begins the names of workflows' actors/,
    );
    const Shift = workflow({ name: 'shift', input: z.object({}), run: async () => null });
    expect(Shift.actor.name).toBe('wf-shift');
  });

  it("refuses a workflow ref of a ref's actor id, naming the instance id to pass", () => {
    const Shift = workflow({ name: 'shift', input: z.object({}), run: async () => null });
    const ref = Shift.ref('s-1');
    expect(ref).toMatchObject({ id: 'wf-shift/s-1', key: 's-1', workflow: 'shift' });
    expect(() => Shift.ref(ref.id)).toThrow(
      expect.objectContaining({
        code: ErrorCode.INVALID_REF,
        message:
          'shift.ref("wf-shift/s-1"): that is the actor id of instance "s-1" (a ref\'s .id), not an instance id: pass the instance id, a ref\'s .key — shift.ref("s-1")',
      }),
    );
    // An instance id of other slashes is an id as any other.
    expect(Shift.ref('wf-other/s-1').key).toBe('wf-other/s-1');
    // One an earlier Baton started under such an id stays in operators' reach.
    expect(storedInstanceRef(Shift, ref.id)).toEqual({
      id: 'wf-shift/wf-shift/s-1',
      type: 'wf-shift',
      key: 'wf-shift/s-1',
      workflow: 'shift',
    });
  });

  it.each(['counter', 'Counter', 'c', 'bank-account', 'bank_account2', 'wf', 'wfx-1'])(
    'accepts the name %j',
    (name) => {
      expect(actor({ ...options, name }).name).toBe(name);
    },
  );

  it('takes names of up to MAX_NAME_LENGTH characters, for its type and its handlers, which clients name', () => {
    const name = `a${'b'.repeat(MAX_NAME_LENGTH - 1)}`;
    const handlers = { [name]: options.handlers.add };
    expect(actor({ ...options, name, handlers }).name).toBe(name);
    expect(() => actor({ ...options, name: `${name}c` })).toThrow(
      `actor name "${name.slice(0, 40)}…" is too long: it is 129 characters long, and a name is at most 128`,
    );
    expect(() =>
      actor({ ...options, name: 'a', handlers: { [`${name}c`]: options.handlers.add } }),
    ).toThrow(
      /^actor "a" has invalid handlers: "abbb[b]*…": it is 129 characters long, and a name is at most 128$/,
    );
    const flow = { input: z.object({}), run: async () => null };
    expect(workflow({ ...flow, name: name.slice(3) }).actor.name).toHaveLength(MAX_NAME_LENGTH);
    expect(() => workflow({ ...flow, name: name.slice(2) })).toThrow(
      /name is too long: as its actor type "wf-<name>", it is 129 characters long/,
    );
  });

  it('keeps the options and marks the definition as an actor', () => {
    const Counter = actor({ ...options, name: 'counter' });
    expect(Counter.kind).toBe('actor');
    expect(Counter.state).toBe(options.state);
    expect(Counter.initial).toBe(options.initial);
    expect(Counter.handlers).toBe(options.handlers);
  });

  describe('state schema', () => {
    const define = (state: unknown) => () =>
      actor({ ...options, name: 'tagger', state: state as typeof options.state });

    it.each([
      ['a z.set()', z.object({ tags: z.set(z.string()) }), 'state.tags', 'Set'],
      [
        'a z.map() deep inside, optional',
        z.object({ days: z.array(z.object({ seen: z.map(z.string(), z.number()).optional() })) }),
        'state.days.*.seen',
        'Map',
      ],
      [
        'a z.set() in a branch of a union',
        z.object({ tags: z.union([z.array(z.string()), z.set(z.string())]) }),
        'state.tags',
        'Set',
      ],
      [
        'a z.map() as a record value, in zod mini',
        zm.object({ by: zm.record(zm.string(), zm.map(zm.string(), zm.number())) }),
        'state.by.*',
        'Map',
      ],
      [
        'a z.set() in a tuple behind z.lazy()',
        z.object({ pair: z.lazy(() => z.tuple([z.string(), z.set(z.number())])) }),
        'state.pair.1',
        'Set',
      ],
      ['a z.set() as the whole state', z.set(z.string()), 'state', 'Set'],
      ['a z.date()', z.object({ since: z.date() }), 'state.since', 'Date'],
      [
        'a z.coerce.date(), optional',
        z.object({ at: z.coerce.date().optional() }),
        'state.at',
        'Date',
      ],
    ])('refuses a state schema holding %s, naming the path', (_, state, path, kind) => {
      let error: BatonError | undefined;
      try {
        define(state)();
      } catch (caught) {
        if (isBatonError(caught)) error = caught;
      }
      expect(error?.code).toBe(ErrorCode.INVALID_ARGUMENT);
      expect(error?.details).toEqual({ path, kind });
      const stored =
        kind === 'Date'
          ? 'as its ISO string, which handlers would read back: declare a string (z.iso.datetime()) or epoch milliseconds (z.number())'
          : `as {}, its entries lost: declare ${kind === 'Map' ? 'a record (z.record)' : 'an array (z.array)'}`;
      expect(error?.message).toBe(
        `actor "tagger": its state schema declares a ${kind} at ${path} (z.${kind.toLowerCase()}()), but state is kept as JSON, which stores a ${kind} ${stored} instead`,
      );
    });

    it('accepts a schema of JSON values, a recursive one too', () => {
      const Node = z.object({
        name: z.string(),
        get children(): z.ZodArray<typeof Node> {
          return z.array(Node);
        },
      });
      for (const state of [
        z.object({ tags: z.array(z.string()), by: z.record(z.string(), z.number()) }),
        z.object({ root: Node, at: z.iso.datetime().optional() }),
        z.object({ tree: z.lazy(() => Node) }),
        zm.object({ n: zm.number() }),
      ]) {
        expect(codeOf(define(state))).toBeUndefined();
      }
    });
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

    it('accepts a key of exactly MAX_ACTOR_KEY_BYTES UTF-8 bytes, in one- to four-byte characters', () => {
      expect(MAX_ACTOR_KEY_BYTES).toBe(1024);
      for (const char of ['a', 'é', '€', '😀']) {
        const key = char.repeat(MAX_ACTOR_KEY_BYTES / Buffer.byteLength(char, 'utf8'));
        expect(Counter.ref(key).key).toBe(key);
      }
    });

    it.each([
      ['one byte more in ASCII', 'a'.repeat(MAX_ACTOR_KEY_BYTES + 1), MAX_ACTOR_KEY_BYTES + 1],
      ['342 three-byte characters (1026 bytes)', '€'.repeat(342), 1026],
      ['257 emoji (1028 bytes)', '😀'.repeat(257), 1028],
      ['600,000 characters', 'k'.repeat(600_000), 600_000],
    ])(
      'rejects a key over the limit (%s) with INVALID_REF naming its size and the limit',
      (_, key, bytes) => {
        let error: BatonError | undefined;
        try {
          Counter.ref(key);
        } catch (caught) {
          if (isBatonError(caught)) error = caught;
        }
        expect(error?.code).toBe(ErrorCode.INVALID_REF);
        expect(error?.terminal).toBe(true);
        expect(error?.details).toEqual({
          type: 'counter',
          limit: MAX_ACTOR_KEY_BYTES,
          actual: bytes,
        });
        expect(error?.message).toContain(`counter.ref(key)`);
        expect(error?.message).toContain(`${bytes} UTF-8 bytes`);
        expect(error?.message).toContain('use a shorter key');
      },
    );

    it.each(['a\ud800', '\udc00b', 'x\ud800\ud800y'])(
      'rejects the key %j with an unpaired surrogate, which has no UTF-8 form',
      (escaped) => {
        const key = JSON.parse(`"${escaped}"`) as string;
        expect(codeOf(() => Counter.ref(key))).toBe(ErrorCode.INVALID_REF);
      },
    );
  });
});
