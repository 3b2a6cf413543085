import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { BatonApp, Logger } from '@baton/core';
import { BatonError, ErrorCode, SYSTEM, toBatonError } from '@baton/core';
import { Client } from '@baton/core/client';
import {
  type FollowUp,
  purgeDeadLetter,
  redriveDeadLetter,
  storedInstanceRef,
} from '@baton/core/engine';
import {
  bearerCaller,
  type HttpIngressRequest,
  type HttpResponse,
  httpIngress,
} from '@baton/server/http';
import { readActorHistory } from '../../actorHistory.ts';
import { inspectFailing } from '../../inspectedFailing.ts';
import { FORWARD_HEADER } from '../protocol.ts';
import { sameSecret } from '../secrets.ts';
import type { DevBackend } from './DevBackend.ts';

/** What the app process's HTTP server does beside the ingress. */
export interface HttpHooks {
  /** What the supervisor puts in {@link FORWARD_HEADER}: requests without it are refused. */
  readonly forwardSecret: string;
  /** Arms the crash switch; refused (INVALID_STATE) when nothing would survive a crash. */
  armCrash(message: string | undefined): void;
  /** The app process's log: why the ingress refused a sign-in goes there. */
  readonly logger: Logger;
  /**
   * How a refusal of redrive or purge names the next step: the inspector's buttons, not the
   * `baton` commands that refuse the embedded backend (see `inspectorFollowUp`).
   */
  readonly followUp: FollowUp;
}

/** Who an operator action taken from the inspector is recorded as done by. */
const INSPECTOR_OPERATOR = 'baton dev inspector';

const MAX_BODY = 1024 * 1024;
/** How long a connection whose body was too long is kept, unread, once answered. */
const LINGER_MS = 2_000;

/**
 * The app process's HTTP server (loopback, any port; the supervisor forwards to it, after its
 * checks, and only what it forwards is answered): the Lambda ingress's routes, and the
 * inspector's actions (the supervisor asked them for the inspector's token).
 * - `POST /send`, `POST /ask`, `GET /outcome…`: `@baton/server/http`'s `httpIngress`, the
 *   ingress the Lambda deployment runs too.
 * - `POST /_baton/send`, `POST /_baton/ask`: the same, for the inspector's form; with `?as=system`
 *   sent as trusted code (`client.asSystem()`): internal handlers too, no `authorize`.
 * - `POST /_baton/redrive` `{ actorId, messageId, force? }`: the engine's `redriveDeadLetter`.
 * - `POST /_baton/purge` `{ actorId, messageId }`: the engine's `purgeDeadLetter`, which forgets
 *   a dead letter without applying it (`baton dead-letters purge` on a deployment).
 * - `POST /_baton/history` `{ actorId }`: the actor's history as the store keeps it (it
 *   survives a restart, unlike the recent turns the inspector's live view shows), and what
 *   holds it: its pause (`paused`) and the message failing at the head of its inbox (`failing`).
 * - `POST /_baton/workflow` `{ action, workflow, id, event?, payload? }`: cancels, resumes,
 *   terminates or signals a workflow instance, as trusted code (the inspector's buttons).
 * - `POST /_baton/crash` `{ message? }`: SIGKILL this process right after the next commit of
 *   a turn (handling `message`, if named) — before its outbox is drained or its inbox acked.
 */
export async function serveHttp(
  app: BatonApp,
  backend: DevBackend,
  hooks: HttpHooks,
): Promise<Server> {
  // The very ingress a deployment runs, signing requests in with the app's own `auth`.
  const ingress = httpIngress({
    actors: app.actors,
    store: backend.store,
    queue: backend.queue,
    ...(app.auth ? { caller: bearerCaller(app.auth) } : {}),
    logger: hooks.logger,
  });
  // The inspector's form as trusted code, as its workflow buttons send: internal handlers too.
  const trusted = httpIngress({
    actors: app.actors,
    store: backend.store,
    queue: backend.queue,
    caller: () => SYSTEM,
    logger: hooks.logger,
  });
  const handle = async (request: IncomingMessage, response: ServerResponse) => {
    if (!sameSecret(request.headers[FORWARD_HEADER], hooks.forwardSecret)) {
      request.resume();
      return send(response, 403, {
        error: {
          code: ErrorCode.FORBIDDEN,
          message: "this is baton dev's app process: call the port baton dev printed instead",
        },
      });
    }
    delete request.headers[FORWARD_HEADER];
    const { body, bytes, whole } = await readBody(request);
    if (!whole) {
      // Past the limit, the rest is not read: answered (413, below), then the connection is
      // closed: by the supervisor, which stops forwarding once answered, or after a grace
      // (closed at once, with data unread, it would be reset and the answer lost).
      response.once('finish', () => setTimeout(() => request.destroy(), LINGER_MS).unref());
    }
    const url = new URL(request.url ?? '/', 'http://localhost');
    const path = url.pathname;
    const ingressRequest = (route: string): HttpIngressRequest => ({
      method: request.method ?? 'GET',
      path: route,
      query: url.search.slice(1),
      headers: headersOf(request),
      body,
      bodyBytes: bytes,
    });
    if (request.method === 'POST' && (path === '/_baton/send' || path === '/_baton/ask')) {
      const as = url.searchParams.get('as');
      if (as !== null && as !== 'system') {
        return send(response, 400, {
          error: {
            code: ErrorCode.INVALID_ARGUMENT,
            message: `${path} takes ?as=system (sent as trusted code) or no "as" (sent as the request's caller), not ${JSON.stringify(as)}`,
          },
        });
      }
      const door = as === 'system' ? trusted : ingress;
      const result = await door({ ...ingressRequest(path.slice('/_baton'.length)), query: '' });
      return response.writeHead(result.statusCode, result.headers).end(result.body);
    }
    if (path.startsWith('/_baton/')) {
      if (!whole) {
        return send(response, 413, {
          error: {
            code: ErrorCode.MESSAGE_TOO_LARGE,
            message: `the body is over ${MAX_BODY} bytes: the inspector's actions take small JSON objects`,
          },
        });
      }
      try {
        if (request.method !== 'POST') throw notFound(request.method, path);
        const input = parseJson(body);
        if (path === '/_baton/redrive') {
          const { actorId, messageId, force } = input;
          if (
            typeof actorId !== 'string' ||
            typeof messageId !== 'string' ||
            (force !== undefined && typeof force !== 'boolean')
          ) {
            throw new BatonError(
              ErrorCode.INVALID_ARGUMENT,
              'redrive takes {"actorId": "type/key", "messageId": "…"}, and "force": true to redrive a letter whose sender was answered DEAD_LETTERED, or one kept as too old to tell whether it was applied',
            );
          }
          await redriveDeadLetter(backend.store, backend.queue, actorId, messageId, {
            force: force === true,
            followUp: hooks.followUp,
          });
          return send(response, 202, { redriven: messageId });
        }
        if (path === '/_baton/purge') {
          const { actorId, messageId } = input;
          if (typeof actorId !== 'string' || typeof messageId !== 'string') {
            throw new BatonError(
              ErrorCode.INVALID_ARGUMENT,
              'purge takes {"actorId": "type/key", "messageId": "…"}: the dead letter to forget without applying it',
            );
          }
          await purgeDeadLetter(backend.store, actorId, messageId, {
            by: INSPECTOR_OPERATOR,
            followUp: hooks.followUp,
          });
          return send(response, 200, { purged: messageId });
        }
        if (path === '/_baton/history') {
          const { actorId } = input;
          if (typeof actorId !== 'string') {
            throw new BatonError(
              ErrorCode.INVALID_ARGUMENT,
              'history takes {"actorId": "type/key"}',
            );
          }
          const record = await backend.store.load(actorId);
          if (!record) throw new BatonError(ErrorCode.NOT_FOUND, `${actorId} has no record`);
          return send(response, 200, {
            actorId,
            paused: record.paused ? { at: record.paused.at, by: record.paused.by } : null,
            failing: inspectFailing(record.failing),
            history: await readActorHistory(backend.store, record),
          });
        }
        if (path === '/_baton/workflow') {
          const messageId = await workflowAction(app, backend, input);
          return send(response, 202, { messageId });
        }
        if (path === '/_baton/crash') {
          hooks.armCrash(typeof input.message === 'string' ? input.message : undefined);
          return send(response, 202, { armed: true });
        }
        throw notFound(request.method, path);
      } catch (error) {
        const baton = toBatonError(error);
        const status = baton.code === ErrorCode.NOT_FOUND ? 404 : baton.terminal ? 400 : 503;
        return send(response, status, { error: baton.toJSON() });
      }
    }
    const result = withInspectorHint(await ingress(ingressRequest(path)));
    response.writeHead(result.statusCode, result.headers).end(result.body);
  };
  const server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      if (!response.headersSent) send(response, 500, { error: toBatonError(error).toJSON() });
      else response.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject).listen(0, '127.0.0.1', resolve);
  });
  return server;
}

/**
 * The ingress's answer, with where `baton dev` redrives a dead letter: a DEAD_LETTERED error says
 * to fix the cause and redrive the message, and here that is the inspector's button.
 */
function withInspectorHint(result: HttpResponse): HttpResponse {
  if (result.statusCode !== 422) return result;
  let answer: { error?: { code?: string; details?: object } };
  try {
    answer = JSON.parse(result.body);
  } catch {
    return result;
  }
  if (answer.error?.code !== ErrorCode.DEAD_LETTERED) return result;
  const hint =
    'baton dev: the inspector (on its own port: the inspector line baton dev printed) shows the dead letter, and redrives or purges it';
  const details = { ...answer.error.details, hint };
  return { ...result, body: JSON.stringify({ ...answer, error: { ...answer.error, details } }) };
}

const WORKFLOW_ACTIONS = ['cancel', 'resume', 'terminate', 'signal'];

/** The inspector's action on a workflow instance, sent as trusted code: its message id. */
async function workflowAction(
  app: BatonApp,
  backend: DevBackend,
  input: Record<string, unknown>,
): Promise<string> {
  const { action, workflow, id, event, payload } = input;
  const definition = app.workflows.find((w) => w.name === workflow);
  if (
    !definition ||
    typeof id !== 'string' ||
    !WORKFLOW_ACTIONS.includes(String(action)) ||
    (action === 'signal' && typeof event !== 'string')
  ) {
    throw new BatonError(
      ErrorCode.INVALID_ARGUMENT,
      `workflow takes {"action": ${WORKFLOW_ACTIONS.map((a) => `"${a}"`).join(' | ')}, "workflow": one of the app's (${app.workflows.map((w) => w.name).join(', ') || 'none'}), "id": "…"} and, to signal, "event" and "payload"`,
    );
  }
  const client = new Client({
    actors: app.actors,
    store: backend.store,
    queue: backend.queue,
  }).asSystem();
  const ref = storedInstanceRef(definition, id);
  const body =
    action === 'signal'
      ? { name: event, payload }
      : action === 'resume'
        ? {}
        : { reason: 'from the inspector' };
  const { messageId } = await client.send(ref as never, action as never, body as never);
  return messageId;
}

function send(response: ServerResponse, status: number, value: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(value));
}

function notFound(method: string | undefined, path: string): BatonError {
  return new BatonError(ErrorCode.NOT_FOUND, `no route ${method} ${path}`);
}

function parseJson(body: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(body || '{}');
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
      return value as Record<string, unknown>;
    }
  } catch {}
  throw new BatonError(ErrorCode.INVALID_ARGUMENT, 'the body must be a JSON object');
}

/**
 * The body and its size, read up to {@link MAX_BODY} bytes. A longer one is not read to its end
 * (a client may send for ever): `whole` is false, `body` empty, and `bytes` its declared
 * `content-length`, or without one what was read before stopping. The ingress refuses its size
 * (413) as a deployment does.
 */
async function readBody(
  request: IncomingMessage,
): Promise<{ body: string; bytes: number; whole: boolean }> {
  const declared = Number(request.headers['content-length']);
  if (declared > MAX_BODY) return { body: '', bytes: declared, whole: false };
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let bytes = 0;
    const onData = (chunk: Buffer) => {
      bytes += chunk.length;
      if (bytes <= MAX_BODY) return void chunks.push(chunk);
      // Not destroyed (that would reset the connection before the answer): paused, not read.
      request.off('data', onData).pause();
      resolve({ body: '', bytes, whole: false });
    };
    request.on('data', onData);
    request.once('end', () =>
      resolve({ body: Buffer.concat(chunks).toString('utf8'), bytes, whole: true }),
    );
    request.once('error', reject);
  });
}

/** Node's headers (names already in lower case), repeated ones joined. */
function headersOf(request: IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers)) {
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(',') : value;
  }
  return headers;
}
