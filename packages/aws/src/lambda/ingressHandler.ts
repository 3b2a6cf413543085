import type { Caller } from '@baton/core';
import {
  type HttpIngressOptions,
  type HttpIngressRequest,
  type HttpResponse,
  httpIngress,
} from '@baton/server/http';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { iamCaller } from './iamCaller.ts';

/** `httpIngress`'s options, with a caller read from API Gateway's event. */
export interface IngressOptions extends Omit<HttpIngressOptions, 'caller'> {
  /**
   * Who sent a request: what handlers see as `ctx.caller`, what access is checked against
   * (only public handlers whose `authorize` lets the caller through), and what idempotency keys
   * and outcome reads are scoped by. Throw to refuse the request (401 UNAUTHENTICATED; the
   * client is told only "unauthorized").
   * @default {@link iamCaller}: the SigV4 principal when the route uses IAM authorization, else
   * anonymous
   */
  readonly caller?: (event: APIGatewayProxyEventV2) => Caller | Promise<Caller>;
}

/**
 * The HTTP ingress Lambda (API Gateway HTTP API or a function URL):
 * - `POST …/send` `{ to: "account/alice", name, payload, idempotencyKey }` → 202 `{ messageId }`
 * - `POST …/ask` (same body) → 200 `{ value }` with the handler's reply
 * - `GET …/outcome?to=account/alice&idempotencyKey=dep-1` → 200 `{ outcome }` or 404
 * - `GET …/outcome/<messageId>` (the id a send returned, `%`-escaped) → the same
 * - `POST …/workflows/<name>/start` `{ id, input }` → 202 `{ id, messageId, sentAt }`, or 422
 *   REJECTED for an id that runs or ran with another input
 * - `GET …/workflows/<name>/<id>` → 200 `{ id, status, output?, error?, … }` or 404
 *
 * Every request has a caller (`options.caller`, by default the SigV4 principal): only public
 * handlers whose `authorize` lets it through are sent (403 FORBIDDEN otherwise, naming only the
 * public handlers), idempotency keys are scoped by it (two principals sharing a key send two
 * messages), and an outcome is read only by the caller that sent its message (404 to others).
 * A workflow is reached only when public, and its `authorize` decides each start and read.
 *
 * Errors are JSON `{ error: { code, message, details } }`: 400 for malformed JSON or a wrong
 * payload, 403 for what the caller may not do, 404 for an unknown route or outcome, 413 for an
 * oversized body, 422 for a rejection, 503/504 for what may pass. Nothing is enqueued unless the
 * request is valid and allowed.
 *
 * The routes, bodies and errors are `@baton/server/http`'s `httpIngress`; this adapts API
 * Gateway's events to it.
 *
 * @example
 * export const handler = ingressHandler({ actors: [Account], store, queue });
 */
export function ingressHandler(
  options: IngressOptions,
): (event: APIGatewayProxyEventV2) => Promise<HttpResponse> {
  const callerOfEvent = options.caller ?? iamCaller;
  const events = new WeakMap<HttpIngressRequest, APIGatewayProxyEventV2>();
  const ingress = httpIngress({
    ...options,
    // Each request is made from one event below: the caller hook sees that event.
    caller: (request) => callerOfEvent(events.get(request)!),
  });
  return async (event) => {
    const headers: Record<string, string | undefined> = {};
    for (const [name, value] of Object.entries(event.headers ?? {})) {
      headers[name.toLowerCase()] = value;
    }
    const request: HttpIngressRequest = {
      method: event.requestContext?.http?.method ?? 'POST',
      path: event.rawPath ?? '/',
      query: event.rawQueryString ?? '',
      headers,
      body: event.isBase64Encoded
        ? Buffer.from(event.body ?? '', 'base64').toString('utf8')
        : (event.body ?? ''),
      ...(event.isBase64Encoded
        ? { bodyBytes: Buffer.byteLength(event.body ?? '', 'base64') }
        : {}),
    };
    events.set(request, event);
    return ingress(request);
  };
}
