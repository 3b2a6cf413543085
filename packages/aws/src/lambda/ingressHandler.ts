import {
  type ActorRef,
  type AnyActorDefinition,
  BatonError,
  type Caller,
  Client,
  ErrorCode,
} from '@baton/core';
import {
  type Clock,
  parseActorId,
  parseTraceparent,
  type Queue,
  type Store,
} from '@baton/core/adapter';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { badRequest, errorResponse, type HttpResponse, json } from './httpErrors.ts';
import { iamCaller } from './iamCaller.ts';

export interface IngressOptions {
  readonly actors: readonly AnyActorDefinition[];
  readonly store: Store;
  readonly queue: Queue;
  readonly clock?: Clock;
  /** Bodies larger than this are refused with 413. @default 256,000 bytes (SQS's message limit) */
  readonly maxBodyBytes?: number;
  /** Whether `/send` needs an `idempotencyKey` (retries are then safe). @default true */
  readonly requireIdempotencyKey?: boolean;
  /** How long `/ask` waits; keep it under API Gateway's 30 s. @default 25 s */
  readonly askTimeoutMs?: number;
  /**
   * Who sent a request: what handlers see as `ctx.caller`, what access is checked against
   * (only public handlers whose `authorize` lets the caller through), and what idempotency keys
   * and outcome reads are scoped by. Throw to refuse the request (401 UNAUTHORIZED; the
   * client is told only "unauthorized").
   * @default {@link iamCaller}: the SigV4 principal when the route uses IAM authorization, else
   * anonymous
   */
  readonly caller?: (event: APIGatewayProxyEventV2) => Caller | Promise<Caller>;
}

/** What `/send` and `/ask` take. */
interface IngressRequest {
  readonly to: string;
  readonly name: string;
  readonly payload: unknown;
  readonly idempotencyKey?: string;
}

/**
 * The HTTP ingress Lambda (API Gateway HTTP API or a function URL):
 * - `POST …/send` `{ to: "account/alice", name, payload, idempotencyKey }` → 202 `{ messageId }`
 * - `POST …/ask` (same body) → 200 `{ value }` with the handler's reply
 * - `GET …/outcome/<messageId>` → 200 `{ outcome }` or 404
 *
 * Every request has a caller (`options.caller`, by default the SigV4 principal): only public
 * handlers whose `authorize` lets it through are sent (403 FORBIDDEN otherwise, naming only the
 * public handlers), idempotency keys are scoped by it (two principals sharing a key send two
 * messages), and an outcome is read only by the caller that sent its message (404 to others).
 *
 * Errors are JSON `{ error: { code, message, details } }`: 400 for malformed JSON or a wrong
 * payload, 403 for what the caller may not do, 404 for an unknown route or outcome, 413 for an
 * oversized body, 422 for a rejection, 503/504 for what may pass. Nothing is enqueued unless the
 * request is valid and allowed.
 *
 * @example
 * export const handler = ingressHandler({ actors: [Account], store, queue });
 */
export function ingressHandler(
  options: IngressOptions,
): (event: APIGatewayProxyEventV2) => Promise<HttpResponse> {
  const client = new Client({
    actors: options.actors,
    store: options.store,
    queue: options.queue,
    askTimeoutMs: options.askTimeoutMs ?? 25_000,
    ...(options.clock ? { clock: options.clock } : {}),
  });
  const maxBodyBytes = options.maxBodyBytes ?? 256_000;
  const requireKey = options.requireIdempotencyKey ?? true;
  const callerOfEvent = options.caller ?? iamCaller;

  return async (event) => {
    try {
      const method = event.requestContext?.http?.method ?? 'POST';
      const path = event.rawPath ?? '/';
      const outcome = /\/outcome\/([^/]+)$/.exec(path);
      if (method === 'GET' && outcome) {
        const messageId = decodePathSegment(outcome[1]!);
        const caller = await identify(callerOfEvent, event);
        // Another caller's message id reads as unknown: its outcome is not theirs to see.
        const found = await client.outcome(messageId, { caller });
        if (!found)
          throw notFound('no outcome for that message id yet: it is unknown or not yet processed');
        return json(200, { outcome: found });
      }
      const action = path.endsWith('/send') ? 'send' : path.endsWith('/ask') ? 'ask' : undefined;
      if (method !== 'POST' || !action) {
        throw notFound(
          `no route ${method} ${path}: use POST /send, POST /ask or GET /outcome/<id>`,
        );
      }
      const request = parseRequest(event, maxBodyBytes);
      if (action === 'send' && requireKey && request.idempotencyKey === undefined) {
        throw badRequest(
          'send needs an "idempotencyKey" so that a retried request is applied once',
        );
      }
      const ref = toRef(request.to);
      const caller = await identify(callerOfEvent, event);
      // A caller's W3C trace context travels with the message; a malformed one is dropped.
      const traceparent = event.headers?.traceparent;
      const sendOptions = {
        caller,
        ...(request.idempotencyKey === undefined ? {} : { idempotencyKey: request.idempotencyKey }),
        ...(parseTraceparent(traceparent) ? { traceparent } : {}),
      };
      if (action === 'send') {
        return json(
          202,
          await client.send(ref, request.name, request.payload as never, sendOptions),
        );
      }
      return json(200, {
        value: await client.ask(ref, request.name, request.payload as never, sendOptions),
      });
    } catch (error) {
      return errorResponse(error);
    }
  };
}

function parseRequest(event: APIGatewayProxyEventV2, maxBodyBytes: number): IngressRequest {
  const raw = event.isBase64Encoded
    ? Buffer.from(event.body ?? '', 'base64').toString('utf8')
    : (event.body ?? '');
  const size = Buffer.byteLength(raw);
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
    throw badRequest(
      'the body is not valid JSON: send {"to": "type/key", "name": "...", "payload": {...}}',
    );
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw badRequest('the body must be a JSON object {"to", "name", "payload", "idempotencyKey"}');
  }
  const { to, name, payload, idempotencyKey } = body as Record<string, unknown>;
  const problems: string[] = [];
  if (typeof to !== 'string') problems.push('"to" must be an actor id "type/key"');
  if (typeof name !== 'string') problems.push('"name" must be a message name');
  if (idempotencyKey !== undefined && typeof idempotencyKey !== 'string') {
    problems.push('"idempotencyKey" must be a string');
  }
  if (problems.length > 0)
    throw badRequest(`invalid request: ${problems.join('; ')}`, { problems });
  return {
    to: to as string,
    name: name as string,
    payload,
    ...(idempotencyKey === undefined ? {} : { idempotencyKey: idempotencyKey as string }),
  };
}

function toRef(id: string): ActorRef {
  const parsed = parseActorId(id);
  if (!parsed) throw badRequest(`"${id}" is not an actor id of the form type/key`);
  return { type: parsed.type, key: parsed.key, id };
}

/** A `%`-escaped path segment; a malformed escape is the client's mistake (400), not ours. */
function decodePathSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw badRequest(
      'the message id in /outcome/<id> is not validly %-escaped: encode it with encodeURIComponent',
    );
  }
}

/** The caller of the event; a hook that throws refuses the request as UNAUTHORIZED. */
async function identify(
  callerOf: (event: APIGatewayProxyEventV2) => Caller | Promise<Caller>,
  event: APIGatewayProxyEventV2,
): Promise<Caller> {
  try {
    return await callerOf(event);
  } catch {
    // The hook's reason stays in the server: the client learns only that it may not.
    throw new BatonError(ErrorCode.UNAUTHORIZED, 'unauthorized');
  }
}

function notFound(message: string): BatonError {
  return new BatonError(ErrorCode.NOT_FOUND, message);
}
