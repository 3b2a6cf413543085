import { BatonError, ErrorCode } from '@baton/core';
import { badRequest } from './httpErrors.ts';

/** A request's body as a host received it (see `HttpIngressRequest`). */
interface Body {
  readonly body: string;
  readonly bodyBytes?: number;
  readonly headers?: Readonly<Record<string, string | undefined>>;
}

/** How a route's body looks, for its errors: an example, and its keys (`{"to", "name"}`). */
export interface BodyShape {
  readonly example: string;
  readonly keys: string;
}

/**
 * The request's body as a JSON object: 413 past `maxBodyBytes`, 400 for malformed JSON or
 * another JSON value, saying what the route takes. A request that came over HTTP (it has
 * headers) must say its body is `application/json`: a page on any site can make a browser send a
 * `text/plain` POST, or one without a content type, with the user's cookies and without asking
 * first (CORS preflights only other types), and an app's `auth` may trust those cookies.
 */
export function jsonBody(
  request: Body,
  maxBodyBytes: number,
  shape: BodyShape,
): Record<string, unknown> {
  const type = request.headers?.['content-type'];
  if (request.headers && type?.split(';')[0]?.trim().toLowerCase() !== 'application/json') {
    throw badRequest(
      `the body must be JSON sent with content-type: application/json (this one came ${type === undefined ? 'without a content type' : `as ${type.slice(0, 100)}`}): a browser sends other types from any site's page without asking, so they are refused`,
    );
  }
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
