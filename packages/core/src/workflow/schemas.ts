/**
 * The payload schemas of a workflow's actor handlers. Core imports no zod at run time, so these
 * are small `safeParse` objects; the input and events keep the app's own zod schemas.
 */
import type { Schema } from '../schema.ts';

interface Issue {
  readonly path: readonly PropertyKey[];
  readonly message: string;
}
type Parsed = { success: true; data: unknown } | { success: false; error: { issues: Issue[] } };

/** A schema from a parse function returning the value or the issues. */
function schema(parse: (value: Record<string, unknown>) => unknown | Issue[]): Schema {
  return {
    safeParse(value: unknown): Parsed {
      if (typeof value !== 'object' || value === null || Array.isArray(value)) {
        return { success: false, error: { issues: [{ path: [], message: 'expected an object' }] } };
      }
      const result = parse(value as Record<string, unknown>);
      return result instanceof IssueList
        ? { success: false, error: { issues: [...result] } }
        : { success: true, data: result };
    },
  } as unknown as Schema;
}

class IssueList extends Array<Issue> {}

const issues = (...list: Issue[]) => IssueList.from(list) as IssueList;

/** `value[field]` through `inner`, its issues' paths under `field`. */
function parseField(
  inner: Schema,
  field: string,
  value: unknown,
): { ok: true; value: unknown } | { ok: false; issues: Issue[] } {
  const result = inner.safeParse(value) as Parsed;
  if (result.success) return { ok: true, value: result.data };
  return {
    ok: false,
    issues: result.error.issues.map((issue) => ({ ...issue, path: [field, ...issue.path] })),
  };
}

/** `{ input }`, the input parsed by the workflow's schema. */
export function startPayload(input: Schema): Schema {
  return schema((value) => {
    const parsed = parseField(input, 'input', value.input);
    return parsed.ok ? { input: parsed.value } : issues(...parsed.issues);
  });
}

/** `{ input, seq, run? }`: a parent's start of a child, by its command `seq` in its run `run`. */
export function childPayload(input: Schema): Schema {
  return schema((value) => {
    if (!Number.isInteger(value.seq))
      return issues({ path: ['seq'], message: 'expected an integer' });
    if (value.run !== undefined && typeof value.run !== 'string')
      return issues({ path: ['run'], message: 'expected a string' });
    const parsed = parseField(input, 'input', value.input);
    if (!parsed.ok) return issues(...parsed.issues);
    return value.run === undefined
      ? { input: parsed.value, seq: value.seq }
      : { input: parsed.value, seq: value.seq, run: value.run };
  });
}

/** `{ name, payload }`, the payload parsed by the event's schema when the workflow names events. */
export function signalPayload(events: Readonly<Record<string, Schema>> | undefined): Schema {
  return schema((value) => {
    const { name } = value;
    if (typeof name !== 'string' || name.length === 0) {
      return issues({ path: ['name'], message: 'expected the event name, a non-empty string' });
    }
    if (!events) return { name, payload: value.payload };
    const event = Object.hasOwn(events, name) ? events[name] : undefined;
    if (!event) {
      return issues({
        path: ['name'],
        message: `unknown event "${name}" (this workflow takes: ${Object.keys(events).join(', ')})`,
      });
    }
    const parsed = parseField(event, 'payload', value.payload);
    return parsed.ok ? { name, payload: parsed.value } : issues(...parsed.issues);
  });
}

/**
 * `{ reason?, seq?, run? }`: a cancel's or terminate's. A parent ending its child also names its
 * command that started the child (`seq`) and its run, so a start that comes after it is known.
 */
export const endPayload: Schema = schema((value) => {
  const { reason, seq, run } = value;
  if (reason !== undefined && typeof reason !== 'string') {
    return issues({ path: ['reason'], message: 'expected a string' });
  }
  if (seq !== undefined && !Number.isInteger(seq)) {
    return issues({ path: ['seq'], message: 'expected an integer' });
  }
  if (run !== undefined && typeof run !== 'string') {
    return issues({ path: ['run'], message: 'expected a string' });
  }
  return {
    ...(reason === undefined ? {} : { reason }),
    ...(seq === undefined ? {} : { seq }),
    ...(run === undefined ? {} : { run }),
  };
});

/** `{ token, ok, value?, error? }`: an outside system completing a callback. */
export const callbackPayload: Schema = schema((value) => {
  if (typeof value.token !== 'string')
    return issues({ path: ['token'], message: 'expected a string' });
  if (typeof value.ok !== 'boolean') return issues({ path: ['ok'], message: 'expected a boolean' });
  if (value.error !== undefined && typeof value.error !== 'string') {
    return issues({ path: ['error'], message: 'expected a string' });
  }
  return value;
});

/** The engine's own messages: any object (they come from this workflow's own turns). */
export const internalPayload: Schema = schema((value) => value);
