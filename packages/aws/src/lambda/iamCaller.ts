import {
  ANONYMOUS,
  BatonError,
  type Caller,
  type ConnectRequest,
  callerOf,
  ErrorCode,
} from '@baton/core';
import { systemClock } from '@baton/core/adapter';
import { authenticate } from '@baton/server/session';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';

/** The parts of an event's request context that name a SigV4-signed caller. */
interface IamContext {
  /** HTTP API (payload 2.0) and function URLs with IAM authorization. */
  readonly authorizer?: {
    readonly iam?: { readonly userArn?: string; readonly callerId?: string };
    /** A Lambda authorizer's context, e.g. `jwtAuthorizer`'s `{ identity, validUntil }`. */
    readonly lambda?: { readonly identity?: unknown; readonly validUntil?: unknown };
  };
  /** REST APIs (payload 1.0) with IAM authorization. */
  readonly identity?: { readonly userArn?: string | null; readonly caller?: string | null };
}

/**
 * The caller of an HTTP ingress event: the user a Lambda authorizer passed on as
 * `requestContext.authorizer.lambda.identity` (`@baton/aws/auth`'s `jwtAuthorizer`) — refused
 * (401) once the `validUntil` it passed with it (epoch ms: the token's `exp`) is past, as API
 * Gateway may let a request through from its cache of the authorizer's results; else the
 * IAM principal that signed it (SigV4), from `requestContext.authorizer.iam` (HTTP API, function
 * URL) or `requestContext.identity` (REST API) — its `userArn`, else its caller id; else
 * anonymous. The ingress's default `caller`.
 *
 * @example
 * iamCaller(event); // { kind: 'iam', principal: 'arn:aws:iam::123456789012:user/ops' }
 */
export function iamCaller(event: APIGatewayProxyEventV2): Caller {
  const context = event.requestContext as unknown as IamContext | undefined;
  const lambda = context?.authorizer?.lambda;
  const identity = lambda?.identity;
  if (identity !== undefined && identity !== null) {
    refuseLapsed(lambda!.validUntil);
    return { kind: 'user', identity };
  }
  const iam = context?.authorizer?.iam;
  const principal =
    iam?.userArn || iam?.callerId || context?.identity?.userArn || context?.identity?.caller;
  return typeof principal === 'string' && principal !== '' ? { kind: 'iam', principal } : ANONYMOUS;
}

/**
 * A `caller` for the HTTP ingress that signs requests in as the WebSocket hosts do: a request an
 * authorizer or SigV4 signed keeps that caller ({@link iamCaller}); otherwise the app's `auth` is given the bearer token of the
 * `authorization` header (and the headers, names in lower case), and what it returns is the
 * user (`callerOf(identity)`). An `auth` that throws, or ends the identity already
 * (`validUntil`), refuses the request (401).
 *
 * @example
 * export const handler = ingressHandler({ actors, store, queue, caller: authCaller(app.auth) });
 */
export function authCaller(
  auth: (request: ConnectRequest) => unknown,
): (event: APIGatewayProxyEventV2) => Promise<Caller> {
  return async (event) => {
    const signed = iamCaller(event);
    if (signed.kind !== 'anonymous') return signed;
    const headers: Record<string, string | undefined> = {};
    for (const [name, value] of Object.entries(event.headers ?? {})) {
      headers[name.toLowerCase()] = value;
    }
    const match = /^Bearer\s+(\S+)$/i.exec(headers.authorization ?? '');
    const attempt = match ? { token: match[1]!, headers } : { headers };
    return callerOf((await authenticate(auth, attempt, systemClock)).identity);
  };
}

/**
 * Throws UNAUTHENTICATED when a Lambda authorizer's `validUntil` (epoch ms) is past: API Gateway
 * answered from its cache of the authorizer's results after the token ended.
 */
function refuseLapsed(validUntil: unknown): void {
  const until = typeof validUntil === 'string' ? Number(validUntil) : validUntil;
  if (typeof until !== 'number' || Number.isNaN(until) || until > systemClock.now()) return;
  throw new BatonError(
    ErrorCode.UNAUTHENTICATED,
    `the token expired at ${new Date(until).toISOString()}, and the authorizer's cached answer outlived it: send a fresh token`,
  );
}
