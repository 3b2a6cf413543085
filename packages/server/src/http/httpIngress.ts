import {
  type ActorRef,
  ANONYMOUS,
  type AnyActorDefinition,
  BatonError,
  type Caller,
  type ConnectRequest,
  callerOf,
  ErrorCode,
  jsonLogger,
  type Logger,
} from '@baton/core';
import {
  type Clock,
  ingressMessageId,
  parseActorId,
  parseTraceparent,
  type Queue,
  type Store,
  systemClock,
} from '@baton/core/adapter';
import { Client } from '@baton/core/client';
import { authenticateWithin, isAuthTimeout } from '../session/authenticate.ts';
import { authRefusal, UNAUTHORIZED } from '../session/authRefusal.ts';
import { badRequest, errorResponse, type HttpResponse, json } from './httpErrors.ts';
import { jsonBody, unknownKeys } from './jsonBody.ts';
import { answerWorkflowRoute, workflowRoute, workflowsOf } from './workflowRoutes.ts';

/** An HTTP request as any host receives it: a Lambda event, a Node request, a test. */
export interface HttpIngressRequest {
  readonly method: string;
  /** The path; anything before the route (a stage, a prefix) is allowed: `/prod/send`. */
  readonly path: string;
  /** The query string, without its `?`. */
  readonly query?: string;
  /** Header names in lower case. */
  readonly headers?: Readonly<Record<string, string | undefined>>;
  /** The body as text (UTF-8). */
  readonly body: string;
  /**
   * The size of the body as it arrived, in bytes, when the host read only part of it (a host
   * stops reading past a limit); otherwise the body's own size.
   */
  readonly bodyBytes?: number;
}

export interface HttpIngressOptions {
  readonly actors: readonly AnyActorDefinition[];
  readonly store: Store;
  readonly queue: Queue;
  readonly clock?: Clock;
  /** Bodies larger than this are refused with 413. @default 256,000 bytes (SQS's message limit) */
  readonly maxBodyBytes?: number;
  /** Whether `/send` needs an `idempotencyKey` (retries are then safe). @default true */
  readonly requireIdempotencyKey?: boolean;
  /** How long `/ask` waits. @default 25 s (under API Gateway's 30 s) */
  readonly askTimeoutMs?: number;
  /**
   * The engine's `idempotencyRetentionMs`: give this door the value its engine has. A key stays
   * bound to its message twice this from its send; with less than the engine's, a client's retry
   * past that would be a new message, applied again while the engine still keeps the first's
   * outcome. @default 14 days, the engine's default
   */
  readonly idempotencyRetentionMs?: number;
  /**
   * Who sent a request: what handlers see as `ctx.caller`, what access is checked against, and
   * what idempotency keys and outcome reads are scoped by. Throw to refuse the request (401
   * UNAUTHENTICATED; the client is told only "unauthorized", the reason goes to `logger`).
   * @default anonymous
   */
  readonly caller?: (request: HttpIngressRequest) => Caller | Promise<Caller>;
  /** Where a refused sign-in's reason goes (as the WebSocket hosts log it). @default jsonLogger() */
  readonly logger?: Logger;
}

/** What `/send` and `/ask` take. */
interface SendRequest {
  readonly to: string;
  readonly name: string;
  readonly payload: unknown;
  readonly idempotencyKey?: string;
}

/**
 * The HTTP ingress, whatever carries the request:
 * - `POST …/send` `{ to: "account/alice", name, payload, idempotencyKey }` → 202
 *   `{ messageId, sentAt }`
 * - `POST …/ask` (same body) → 200 `{ value }` with the handler's reply
 * - `GET …/outcome?to=account/alice&idempotencyKey=dep-1` → 200 `{ outcome }` or 404
 * - `GET …/outcome/<messageId>` (the id a send returned, `%`-escaped) → the same
 * - `POST …/workflows/<name>/start` `{ id, input, idempotencyKey? }` → 202
 *   `{ id, messageId, sentAt }`: starts the instance (idempotent per id, as `client.start`;
 *   422 REJECTED for an id that runs or ran with another input)
 * - `GET …/workflows/<name>/<id>` (`%`-escaped) → 200 `{ id, status, output?, error?, … }`, as
 *   `client.workflowStatus` reads it, or 404 for an instance never started; with `?waitMs=<ms>`
 *   (up to `askTimeoutMs`) it first waits that long at most for the instance to end or pause
 *   (for one that reads as never started, 3 s: a start sent moments ago)
 *
 * An outcome is read from its send on: the send its key's claim names, or, for a message sent
 * with no key, the send its id carries (such an id is a receipt, which only the app's doors can
 * make: see `receipts.ts` in the core). An id with neither is unknown at once (404), with no
 * outcome page read. `&sentAt=<the send's sentAt>` is still taken, and read only for a trusted
 * (system) caller's id that has neither. One read goes through
 * `OUTCOME_READ_MAX_PAGES` outcome pages at most: one that needs more on a busy actor is refused
 * (429 LIMIT_EXCEEDED).
 *
 * Only public handlers whose `authorize` lets the caller through are sent (403 FORBIDDEN
 * otherwise, naming only the public handlers); idempotency keys are scoped by the caller, and an
 * outcome is read only by the caller that sent its message (404 to others). A workflow is
 * reached only when public (404 to others but trusted code), and its `authorize` decides each
 * start (`{ action: 'start' }`) and read (`{ action: 'read' }`, 403 when refused).
 *
 * A POST's body must come as `content-type: application/json` when the request has headers (as
 * every HTTP host gives): a browser sends a `text/plain` or untyped body from any site's page
 * without asking first, with the user's cookies. Errors are JSON
 * `{ error: { code, message, details } }`: 400 for malformed JSON, another content type or a
 * wrong payload, 403 for what the caller may not do, 404 for an unknown route or outcome, 413 for an
 * oversized body, 422 for a rejection, 503/504 for what may pass. Nothing is enqueued unless the
 * request is valid and allowed.
 *
 * @example
 * const ingress = httpIngress({ actors: [Account], store, queue });
 * const response = await ingress({ method: 'POST', path: '/send', body: '{"to":"account/alice",…}' });
 * // { statusCode: 202, headers: { 'content-type': 'application/json' }, body: '{"messageId":…}' }
 */
export function httpIngress(
  options: HttpIngressOptions,
): (request: HttpIngressRequest) => Promise<HttpResponse> {
  const askTimeoutMs = options.askTimeoutMs ?? 25_000;
  const client = new Client({
    actors: options.actors,
    store: options.store,
    queue: options.queue,
    askTimeoutMs,
    ...(options.clock ? { clock: options.clock } : {}),
    ...(options.idempotencyRetentionMs === undefined
      ? {}
      : { idempotencyRetentionMs: options.idempotencyRetentionMs }),
  });
  const maxBodyBytes = options.maxBodyBytes ?? 256_000;
  const requireKey = options.requireIdempotencyKey ?? true;
  const callerOfRequest = options.caller ?? (() => ANONYMOUS);
  const logger = options.logger ?? jsonLogger();
  const workflows = workflowsOf(options.actors);

  return async (request) => {
    try {
      const { method, path } = request;
      const route = workflowRoute(method, path);
      if (route) {
        return await answerWorkflowRoute(route, request, workflows, {
          client,
          maxBodyBytes,
          maxWaitMs: askTimeoutMs,
          identify: () => identify(callerOfRequest, request, logger),
        });
      }
      if (method === 'GET' && /\/outcome(\/[^/]*)?$/.test(path)) {
        const messageId = outcomeId(path, new URLSearchParams(request.query ?? ''));
        const caller = await identify(callerOfRequest, request, logger);
        const id =
          typeof messageId === 'string' ? messageId : ingressMessageId(...messageId, caller);
        const sentAt = sentAtOf(new URLSearchParams(request.query ?? ''));
        // Another caller's message reads as unknown: its outcome is not theirs to see. A message
        // named by its key was sent keyed: with no claim on its key it is unknown, and no
        // outcome page is read. (By id, it may be an unkeyed one's receipt.)
        const found = await client.outcome(id, {
          caller,
          keyed: typeof messageId !== 'string',
          ...(sentAt === undefined ? {} : { sentAt }),
        });
        if (!found)
          throw notFound('no outcome for that message yet: it is unknown or not yet processed');
        return json(200, { outcome: found });
      }
      const action = path.endsWith('/send') ? 'send' : path.endsWith('/ask') ? 'ask' : undefined;
      if (method !== 'POST' || !action) {
        throw notFound(
          `no route ${method} ${path}: use POST /send, POST /ask, GET /outcome?to=<type/key>&idempotencyKey=<key>, POST /workflows/<name>/start or GET /workflows/<name>/<id>`,
        );
      }
      const body = parseRequest(request, maxBodyBytes);
      if (action === 'send' && requireKey && body.idempotencyKey === undefined) {
        throw badRequest(
          'send needs an "idempotencyKey" so that a retried request is applied once',
        );
      }
      const ref = toRef(body.to);
      const caller = await identify(callerOfRequest, request, logger);
      // A caller's W3C trace context travels with the message; a malformed one is dropped.
      const traceparent = request.headers?.traceparent;
      const sendOptions = {
        caller,
        ...(body.idempotencyKey === undefined ? {} : { idempotencyKey: body.idempotencyKey }),
        ...(parseTraceparent(traceparent) ? { traceparent } : {}),
      };
      if (action === 'send') {
        return json(202, await client.send(ref, body.name, body.payload as never, sendOptions));
      }
      return json(200, {
        value: await client.ask(ref, body.name, body.payload as never, sendOptions),
      });
    } catch (error) {
      return errorResponse(error, logger);
    }
  };
}

/**
 * A `caller` for {@link httpIngress} that signs requests in as the WebSocket hosts do: the app's
 * `auth` is given the bearer token of the `authorization` header (and the headers), and what it
 * returns is the user (`callerOf(identity)`). An `auth` that throws, or ends the identity
 * already (`validUntil`), refuses the request (401). One that runs past `timeoutMs` (10 s unless
 * given) has its `request.signal` aborted, and the request is answered 503 UNAVAILABLE (try again
 * later), as the local WebSocket host closes such a connection: a hook that hangs holds no
 * request for longer.
 *
 * @example
 * const ingress = httpIngress({ actors, store, queue, caller: bearerCaller(app.auth) });
 */
export function bearerCaller(
  auth: (request: ConnectRequest) => unknown,
  options: { readonly timeoutMs?: number } = {},
): (request: HttpIngressRequest) => Promise<Caller> {
  const timeoutMs = options.timeoutMs ?? AUTH_TIMEOUT_MS;
  return async ({ headers = {} }) => {
    const match = /^Bearer\s+(\S+)$/i.exec(headers.authorization ?? '');
    const attempt = match ? { token: match[1]!, headers } : { headers };
    return callerOf((await authenticateWithin(auth, attempt, systemClock, timeoutMs)).identity);
  };
}

/** How long {@link bearerCaller} waits for the auth hook by default, as the local host does. */
const AUTH_TIMEOUT_MS = 10_000;

/** The message id an outcome route names, or the target and key to derive it from. */
function outcomeId(path: string, query: URLSearchParams): string | [string, string] {
  const segment = /\/outcome\/([^/]+)$/.exec(path)?.[1];
  if (segment !== undefined) return decodePathSegment(segment);
  const to = query.get('to');
  const key = query.get('idempotencyKey');
  if (!to || !key) {
    throw badRequest(
      'an outcome is read by GET /outcome?to=<type/key>&idempotencyKey=<key> (the target and key the message was sent with) or GET /outcome/<messageId>',
    );
  }
  return [toRef(to).id, key];
}

/** An outcome route's `sentAt`: epoch ms, as a send returned it. */
function sentAtOf(query: URLSearchParams): number | undefined {
  const given = query.get('sentAt');
  if (given === null) return undefined;
  const sentAt = Number(given);
  if (!/^\d{1,16}$/.test(given) || !Number.isSafeInteger(sentAt)) {
    throw badRequest(
      `sentAt must be the sentAt a send returned (epoch ms), got ${JSON.stringify(given)}`,
    );
  }
  return sentAt;
}

/** The keys of a `/send` or `/ask` body. */
const REQUEST_KEYS: ReadonlySet<string> = new Set(['to', 'name', 'payload', 'idempotencyKey']);

const SEND_SHAPE = {
  example: '{"to": "type/key", "name": "...", "payload": {...}}',
  keys: '{"to", "name", "payload", "idempotencyKey"}',
};

function parseRequest(request: HttpIngressRequest, maxBodyBytes: number): SendRequest {
  const body = jsonBody(request, maxBodyBytes, SEND_SHAPE);
  const { to, name, payload, idempotencyKey } = body;
  const problems: string[] = [];
  if (typeof to !== 'string') problems.push('"to" must be an actor id "type/key"');
  if (typeof name !== 'string') problems.push('"name" must be a message name');
  if (idempotencyKey !== undefined && typeof idempotencyKey !== 'string') {
    problems.push('"idempotencyKey" must be a string');
  }
  if (problems.length > 0) {
    const unknown = unknownKeys(body, REQUEST_KEYS);
    if (unknown) problems.push(unknown.problem);
    throw badRequest(`invalid request: ${problems.join('; ')}`, {
      problems,
      ...(unknown ? { unknown: unknown.unknown } : {}),
    });
  }
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
      'the message id in /outcome/<id> is not validly %-escaped: encode it with encodeURIComponent, or read the outcome by GET /outcome?to=<type/key>&idempotencyKey=<key>',
    );
  }
}

/**
 * The caller of the request; a hook that throws refuses the request as UNAUTHENTICATED. The
 * hook's reason goes to the server's log: the client learns only that it may not, and how
 * credentials are sent. A hook that ran past its time is UNAVAILABLE: the client tries again.
 */
async function identify(
  callerOf: (request: HttpIngressRequest) => Caller | Promise<Caller>,
  request: HttpIngressRequest,
  logger: Logger,
): Promise<Caller> {
  try {
    return await callerOf(request);
  } catch (error) {
    if (isAuthTimeout(error)) {
      logger.warn('request refused: the auth hook did not settle in time', { path: request.path });
      throw error;
    }
    authRefusal(error, logger);
    throw new BatonError(ErrorCode.UNAUTHENTICATED, UNAUTHORIZED, {
      details: {
        hint: "the credentials were missing or refused: send them as this ingress takes them (to an app's auth hook, an 'Authorization: Bearer <token>' header; to an IAM-authorized one, a SigV4-signed request); why they were refused is in its log",
      },
    });
  }
}

function notFound(message: string): BatonError {
  return new BatonError(ErrorCode.NOT_FOUND, message);
}
