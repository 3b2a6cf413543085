import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { CLIP_CHARS } from './clip.ts';
import { MAX_SCHEMA_ISSUES, schemaIssues } from './schemaIssues.ts';

const issuesOf = (schema: z.ZodType, value: unknown) => {
  const result = schema.safeParse(value);
  if (result.success) throw new Error('the value passed');
  return result.error.issues;
};

describe('schemaIssues', () => {
  it('names each issue by its path under the root, and all in one line', () => {
    const schema = z.object({ amount: z.number().positive(), to: z.string() });
    const { found, summary } = schemaIssues('payload', issuesOf(schema, { amount: -1 }));
    expect(found.map((issue) => issue.path)).toEqual(['payload.amount', 'payload.to']);
    expect(summary).toBe(found.map((issue) => `${issue.path}: ${issue.message}`).join('; '));
  });

  it('names the first MAX_SCHEMA_ISSUES, then how many more', () => {
    const issues = issuesOf(z.array(z.string()), new Array(MAX_SCHEMA_ISSUES + 7).fill(0));
    const { found, summary } = schemaIssues('args', issues);
    expect(found).toHaveLength(MAX_SCHEMA_ISSUES);
    expect(found.at(-1)?.path).toBe(`args.${MAX_SCHEMA_ISSUES - 1}`);
    expect(summary.endsWith('; and 7 more')).toBe(true);
    expect(summary.split('; ')).toHaveLength(MAX_SCHEMA_ISSUES + 1);
  });

  it('clips the keys a value brought, and a message that lists them', () => {
    const long = 'k'.repeat(10_000);
    const nested = issuesOf(z.record(z.string(), z.number()), { [long]: 'x' });
    expect(schemaIssues('payload', nested).found[0]?.path).toBe(
      `payload.${'k'.repeat(CLIP_CHARS)}…`,
    );
    const strict = z.strictObject({ a: z.number() });
    const unknownKeys = Object.fromEntries(Array.from({ length: 500 }, (_, i) => [`key${i}`, i]));
    const [issue] = schemaIssues('payload', issuesOf(strict, { a: 1, ...unknownKeys })).found;
    expect(issue?.message.length).toBe(257);
    expect(issue?.message.startsWith('Unrecognized keys')).toBe(true);
  });
});
