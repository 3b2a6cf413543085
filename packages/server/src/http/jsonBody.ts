import { BatonError, ErrorCode } from '@baton/core';
import { badRequest } from './httpErrors.ts';

/** A request's body as a host received it (see `HttpIngressRequest`). */
interface Body {
  readonly body: string;
  readonly bodyBytes?: number;
}

/** How a route's body looks, for its errors: an example, and its keys (`{"to", "name"}`). */
export interface BodyShape {
  readonly example: string;
  readonly keys: string;
}

/**
 * The request's body as a JSON object: 413 past `maxBodyBytes`, 400 for malformed JSON or
 * another JSON value, saying what the route takes.
 */
export function jsonBody(
  request: Body,
  maxBodyBytes: number,
  shape: BodyShape,
): Record<string, unknown> {
  const raw = request.body;
  const size = request.bodyBytes ?? Buffer.byteLength(raw);
  if (size > maxBodyBytes) {
    throw new BatonError(
      ErrorCode.MESSAGE_TOO_LARGE,
      `the body is ${size} bytes; the limit is ${maxBodyBytes}: send large data by reference`,
      { details: { size, limit: maxBodyBytes } },
    );
  }
  let body: unknown;
  try {
    body = JSON.parse(raw);
  } catch {
    throw badRequest(`the body is not valid JSON: send ${shape.example}`);
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw badRequest(`the body must be a JSON object ${shape.keys}`);
  }
  return body as Record<string, unknown>;
}

/**
 * What to add to a body's problems when it has keys its route does not take: a misspelt key
 * ("nam") is the likely cause of a missing one. `undefined` when it has none.
 */
export function unknownKeys(
  body: Record<string, unknown>,
  known: ReadonlySet<string>,
): { problem: string; unknown: string[] } | undefined {
  const unknown = Object.keys(body)
    .filter((key) => !known.has(key))
    .slice(0, 5)
    .map((key) => key.slice(0, 40));
  if (unknown.length === 0) return undefined;
  const names = [...known].map((key) => JSON.stringify(key));
  return {
    unknown,
    problem: `the body has ${unknown.length === 1 ? 'a key' : 'keys'} a request does not: ${unknown.map((key) => JSON.stringify(key)).join(', ')} (misspelt? a request has ${names.slice(0, -1).join(', ')} and ${names.at(-1)})`,
  };
}
