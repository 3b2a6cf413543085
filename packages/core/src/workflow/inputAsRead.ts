/**
 * A run's input as the running code reads it. The record keeps the input as the start's code
 * parsed it; a deploy may widen the workflow's input schema (deploys.md, rule 3) with a field
 * and its `.default()`. A run started before would otherwise get an input without that field,
 * though its type says it has one, and a start of the same input would no longer match it.
 */
import { canonicalJson } from '../shared/canonicalJson.ts';
import type { AnyWorkflowDefinition } from './workflow.ts';

/**
 * `stored` with what the current input schema adds to it: the schema's reading of it when that
 * only adds (fields absent from `stored`, or array items' fields), else `stored` as it is — a
 * reading that changes a value `stored` holds is a transform already applied at the start, or a
 * narrowed schema: neither is applied again.
 *
 * @example
 * // input: z.object({ n: z.number(), currency: z.string().default('usd') })
 * inputAsRead(definition, { n: 1 }); // { n: 1, currency: 'usd' }
 */
export function inputAsRead(definition: AnyWorkflowDefinition, stored: unknown): unknown {
  const read = definition.input.safeParse(stored);
  if (!read.success || !onlyAdds(stored, read.data)) return stored;
  // The same object when nothing was added, so that a replay writes nothing.
  return canonicalJson(read.data) === canonicalJson(stored) ? stored : read.data;
}

/**
 * Whether `input` (as the workflow's schema parsed it) is the input `stored`: equal, or equal
 * to its reading by the schema — with the defaults of fields the schema gained since it was
 * stored, or without the fields a schema before it does not know (code of an earlier release,
 * still running as a deploy rolls, or rolled back to, meeting an input a newer one kept).
 */
export function sameInput(
  definition: AnyWorkflowDefinition,
  stored: unknown,
  input: unknown,
): boolean {
  const given = canonicalJson(input);
  if (canonicalJson(stored) === given) return true;
  const read = definition.input.safeParse(stored);
  return read.success && canonicalJson(read.data) === given;
}

/** Whether `read` holds every value `stored` holds, the same, with at most fields added. */
function onlyAdds(stored: unknown, read: unknown): boolean {
  if (stored === read) return true;
  if (typeof stored !== 'object' || stored === null || typeof read !== 'object' || read === null) {
    return false;
  }
  if (Array.isArray(stored)) {
    return (
      Array.isArray(read) &&
      read.length === stored.length &&
      stored.every((item, i) => onlyAdds(item, read[i]))
    );
  }
  if (Array.isArray(read)) return false;
  const fields = read as Record<string, unknown>;
  return Object.entries(stored).every(
    ([key, value]) => Object.hasOwn(fields, key) && onlyAdds(value, fields[key]),
  );
}
