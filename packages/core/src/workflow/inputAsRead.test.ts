import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { inputAsRead, sameInput } from './inputAsRead.ts';
import type { AnyWorkflowDefinition } from './workflow.ts';

/** A workflow whose input schema is `input`: all these functions read of its definition. */
const taking = (input: z.ZodType) => ({ input }) as unknown as AnyWorkflowDefinition;

describe('inputAsRead', () => {
  it('adds the fields a widened schema defaults, in objects and in array items', () => {
    const widened = taking(
      z.object({
        n: z.number(),
        currency: z.string().default('usd'),
        lines: z.array(z.object({ sku: z.string(), qty: z.number().default(1) })),
      }),
    );
    expect(inputAsRead(widened, { n: 1, lines: [{ sku: 'a' }, { sku: 'b', qty: 3 }] })).toEqual({
      n: 1,
      currency: 'usd',
      lines: [
        { sku: 'a', qty: 1 },
        { sku: 'b', qty: 3 },
      ],
    });
  });

  it('gives the stored input itself when the reading adds nothing, so a replay writes nothing', () => {
    const stored = { n: 1, tags: ['x'], at: null };
    const read = inputAsRead(
      taking(z.object({ n: z.number(), tags: z.array(z.string()), at: z.null() })),
      stored,
    );
    expect(read).toBe(stored);
    expect(inputAsRead(taking(z.number()), 5)).toBe(5);
  });

  it('keeps the stored input when the reading changes or drops what it holds, or refuses it', () => {
    const cases: [string, z.ZodType, unknown][] = [
      [
        'a transform of a value',
        z.object({ s: z.string().transform((s) => s.toUpperCase()) }),
        { s: 'a' },
      ],
      ['a value of another type', z.object({ n: z.coerce.string() }), { n: 1 }],
      ['a primitive read as an object', z.string().transform((s) => ({ s })), 'a'],
      [
        'an object read as a primitive',
        z.object({ s: z.string() }).transform((o) => o.s),
        { s: 'a' },
      ],
      ['a field the schema strips', z.object({ n: z.number() }), { n: 1, old: true }],
      ['an array cut short', z.array(z.number()).transform((a) => a.slice(1)), [1, 2]],
      ['an array read as an object', z.array(z.number()).transform((a) => ({ ...a })), [1]],
      ['an object read as an array', z.object({ a: z.number() }).transform((o) => [o.a]), { a: 1 }],
      ['an array item changed', z.array(z.number().transform((n) => n + 1)), [1]],
      ['null read as an object', z.null().transform(() => ({})), null],
      ['an input the schema refuses', z.object({ n: z.string() }), { n: 1 }],
    ];
    for (const [what, schema, stored] of cases) {
      expect(inputAsRead(taking(schema), stored), what).toBe(stored);
    }
  });
});

describe('sameInput', () => {
  const widened = taking(z.object({ n: z.number(), currency: z.string().default('usd') }));

  it('takes the same input, in any key order, and the stored one as the schema reads it', () => {
    expect(sameInput(widened, { n: 1, currency: 'eur' }, { currency: 'eur', n: 1 })).toBe(true);
    expect(sameInput(widened, { n: 1 }, { n: 1, currency: 'usd' })).toBe(true);
  });

  it('refuses another input, and one the stored input is not read as', () => {
    expect(sameInput(widened, { n: 1 }, { n: 2, currency: 'usd' })).toBe(false);
    expect(sameInput(widened, { n: 1 }, { n: 1, currency: 'eur' })).toBe(false);
    expect(sameInput(widened, { n: 'x' }, { n: 'x', currency: 'usd' })).toBe(false);
  });
});
