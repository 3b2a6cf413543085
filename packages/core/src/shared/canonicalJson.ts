import { BatonError, ErrorCode, messageOf } from '../errors.ts';

/**
 * JSON with object keys sorted at every depth, so equal values give equal text whatever order
 * their keys were written in. Follows `JSON.stringify` otherwise (`toJSON`, dropped `undefined`
 * fields, `null` for non-finite numbers); a cycle or a BigInt throws INVALID_ARGUMENT naming `what`.
 *
 * @example
 * canonicalJson({ b: 1, a: [{ d: 2, c: 3 }] }); // '{"a":[{"c":3,"d":2}],"b":1}'
 */
export function canonicalJson(value: unknown, what = 'value'): string {
  let text: string | undefined;
  try {
    text = JSON.stringify(value, sortKeys);
  } catch (error) {
    throw new BatonError(ErrorCode.INVALID_ARGUMENT, `${what} is not JSON: ${messageOf(error)}`, {
      cause: error,
    });
  }
  // JSON.stringify gives undefined for undefined, functions and symbols at the top level.
  return text ?? 'null';
}

function sortKeys(_key: string, value: unknown): unknown {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return value;
  // Without a prototype, a "__proto__" key (JSON.parse makes one) is a member like any other.
  const sorted: Record<string, unknown> = Object.create(null);
  for (const key of Object.keys(value).sort()) {
    sorted[key] = (value as Record<string, unknown>)[key];
  }
  return sorted;
}
