/**
 * `baton inspect`'s HTTP server, on loopback only: the inspector's page (`/_baton`) and the
 * JSON it reads (`/_baton/api/…`), each read afresh from the deployment. Actions (redrive,
 * purge, pause, resume, cancel a timer) answer 403 unless the server was started with
 * `allowActions`; when allowed they need the page's token (another site's page cannot send
 * one) and each is audited with who did it.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { BatonError, ErrorCode, isBatonError } from '@baton/core';
import {
  batonCommand,
  cancelTimer,
  endFailingMessage,
  type FollowUp,
  pauseActor,
  purgeDeadLetter,
  redriveDeadLetter,
  resumeActor,
} from '@baton/core/engine';
import { requireInbox } from '../inboxNeeds.ts';
import { recordEnd, recordRedrive, type TrailWriter } from '../letterTrails.ts';
import type { Target } from '../target.ts';
import { readActor, readOverview, searchActors } from './inspectData.ts';
import { INSPECT_SCRIPT, inspectHtml } from './inspectPage.ts';

export interface InspectorOptions {
  readonly target: Target;
  /** Whether the page may act (`--allow-actions`); it only reads otherwise. */
  readonly allowActions: boolean;
  /** @default 0 (any free port) */
  readonly port?: number;
  /** Who acts, for the engine's records and the audit. */
  readonly operator: () => Promise<string>;
  /** Records an action taken from the page (the CLI writes its audit line). */
  readonly audit: (action: string, details: Record<string, unknown>) => Promise<void>;
  readonly now?: () => number;
  /** Says what an action did but could not note beside its message (on stderr). */
  readonly note?: (text: string) => void;
  /**
   * How its hints name a `baton` command: the CLI's, with the target options `baton inspect`
   * was given, since an operator runs them in a terminal, where they would act on the default
   * deployment without them. @default {@link batonCommand}
   */
  readonly followUp?: FollowUp;
}

export interface RunningInspector {
  /** `http://127.0.0.1:<port>/_baton`. */
  readonly url: string;
  /** What the page's actions carry in `x-baton-token`. */
  readonly token: string;
  close(): Promise<void>;
}

const TOKEN_HEADER = 'x-baton-token';
const ACTIONS = ['redrive', 'purge', 'pause', 'resume', 'cancel-timer', 'end-failing'] as const;

/** The audit line's action of the page's actions named apart from their CLI command. */
const AUDITED_AS: Partial<Record<(typeof ACTIONS)[number], string>> = {
  'cancel-timer': 'timers cancel',
  'end-failing': 'actors end-failing',
};

export async function startInspector(options: InspectorOptions): Promise<RunningInspector> {
  const token = randomBytes(18).toString('base64url');
  const now = options.now ?? Date.now;
  const followUp = options.followUp ?? batonCommand;
  const server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => fail(response, error));
  });

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    // Only this machine's names: a DNS-rebound page of another site is refused.
    const host = (request.headers.host ?? '').replace(/:\d+$/, '');
    if (!['127.0.0.1', 'localhost', '[::1]'].includes(host)) {
      throw new BatonError(
        ErrorCode.FORBIDDEN,
        `host ${host} refused: open the inspector on 127.0.0.1`,
      );
    }
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    const path = url.pathname;
    if (request.method === 'GET' && (path === '/' || path === '/_baton' || path === '/_baton/')) {
      if (path === '/') return void response.writeHead(302, { location: '/_baton' }).end();
      const html = inspectHtml({
        table: options.target.names.table,
        token,
        allowActions: options.allowActions,
      });
      return send(response, 200, 'text/html; charset=utf-8', html);
    }
    if (request.method === 'GET' && path === '/_baton/inspect.js') {
      return send(response, 200, 'text/javascript; charset=utf-8', INSPECT_SCRIPT);
    }
    if (request.method === 'GET' && path === '/_baton/api/overview') {
      return sendJson(response, await readOverview(options.target, now(), followUp));
    }
    if (request.method === 'GET' && path === '/_baton/api/actors') {
      const limit = url.searchParams.get('limit');
      const cursor = url.searchParams.get('cursor');
      return sendJson(
        response,
        await searchActors(options.target, url.searchParams.get('prefix') ?? '', {
          ...(limit ? { limit: Math.min(Math.max(Number(limit) || 50, 1), 500) } : {}),
          ...(cursor ? { cursor } : {}),
        }),
      );
    }
    if (request.method === 'GET' && path === '/_baton/api/actor') {
      return sendJson(
        response,
        await readActor(options.target, url.searchParams.get('id') ?? '', now()),
      );
    }
    if (request.method === 'POST' && path.startsWith('/_baton/api/')) {
      const action = path.slice('/_baton/api/'.length);
      if (!(ACTIONS as readonly string[]).includes(action)) throw notFound(path);
      if (!options.allowActions) {
        throw new BatonError(
          ErrorCode.FORBIDDEN,
          `the inspector is read-only: restart it with ${followUp`inspect --allow-actions`} to ${action}`,
        );
      }
      if (request.headers[TOKEN_HEADER] !== token) {
        throw new BatonError(
          ErrorCode.UNAUTHENTICATED,
          `actions need this run's token in ${TOKEN_HEADER}: use them from the inspector's page`,
        );
      }
      const body = (await readJson(request)) as Record<string, unknown>;
      return sendJson(response, await act(action as (typeof ACTIONS)[number], body));
    }
    throw notFound(path);
  }

  async function act(action: (typeof ACTIONS)[number], body: Record<string, unknown>) {
    const { store } = options.target;
    // Redrive, pause and resume send to the inbox: refused when only the table is named.
    const inbox = () => requireInbox(options.target).queue;
    const field = (name: string) => {
      const value = body[name];
      if (typeof value !== 'string' || value === '') {
        throw new BatonError(ErrorCode.INVALID_ARGUMENT, `${action} needs "${name}"`);
      }
      return value;
    };
    const actorId = field('actorId');
    const by = await options.operator();
    // Redrives and ends are noted beside their message, as the CLI's commands note them.
    const writer: TrailWriter = {
      target: options.target,
      by,
      now: now(),
      note: options.note ?? (() => {}),
    };
    switch (action) {
      case 'redrive': {
        const letter = await store.readDeadLetter(actorId, field('messageId'));
        await redriveDeadLetter(store, inbox(), actorId, field('messageId'), {
          force: body.force === true,
          followUp,
        });
        if (letter) await recordRedrive(writer, letter);
        break;
      }
      case 'purge':
        await purgeDeadLetter(store, actorId, field('messageId'), { by, followUp });
        break;
      case 'pause':
        await pauseActor(store, inbox(), actorId, {
          by,
          now: now(),
          followUp,
          force: body.force === true,
        });
        break;
      case 'resume':
        await resumeActor(store, inbox(), actorId, { by, now: now() });
        break;
      case 'cancel-timer':
        await cancelTimer(store, actorId, field('timerId'), { by, followUp });
        break;
      case 'end-failing': {
        const messageId = field('messageId');
        const { ended } = await endFailingMessage(store, actorId, messageId, {
          by,
          now: now(),
          followUp,
        });
        if (ended) await recordEnd(writer, actorId, messageId, ended);
        break;
      }
    }
    const details = {
      actor: actorId,
      ...pick(body, ['messageId', 'timerId', 'force']),
      from: 'inspect',
    };
    await options.audit(AUDITED_AS[action] ?? action, details);
    return { done: action, actor: actorId };
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/_baton`,
    token,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function pick(body: Record<string, unknown>, names: readonly string[]) {
  return Object.fromEntries(names.filter((n) => body[n] !== undefined).map((n) => [n, body[n]]));
}

function notFound(path: string): BatonError {
  return new BatonError(ErrorCode.NOT_FOUND, `no page ${path}: the inspector is at /_baton`);
}

async function readJson(request: IncomingMessage): Promise<unknown> {
  let text = '';
  for await (const chunk of request) {
    text += chunk;
    if (text.length > 64_000) throw new BatonError(ErrorCode.INVALID_ARGUMENT, 'body too large');
  }
  try {
    return JSON.parse(text || '{}');
  } catch {
    throw new BatonError(ErrorCode.INVALID_ARGUMENT, 'the body is not JSON');
  }
}

/**
 * The page holds this run's token: no answer is cached or framed by another page (a framed page
 * could be clicked through its actions).
 */
const HEADERS = {
  'cache-control': 'no-store',
  'content-security-policy': "frame-ancestors 'none'",
  'x-frame-options': 'DENY',
};

function send(response: ServerResponse, status: number, type: string, body: string): void {
  response.writeHead(status, { 'content-type': type, ...HEADERS }).end(body);
}

function sendJson(response: ServerResponse, value: unknown): void {
  send(response, 200, 'application/json', JSON.stringify(value));
}

const STATUS: Partial<Record<string, number>> = {
  INVALID_ARGUMENT: 400,
  UNAUTHENTICATED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
};

function fail(response: ServerResponse, error: unknown): void {
  const status = isBatonError(error) ? (STATUS[error.code] ?? 500) : 500;
  const body = isBatonError(error)
    ? { code: error.code, message: error.message }
    : { code: 'INTERNAL', message: String(error) };
  if (!response.headersSent)
    send(response, status, 'application/json', JSON.stringify({ error: body }));
  else response.end();
}
