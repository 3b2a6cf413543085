/**
 * The HTTP ingress's workflow routes, for callers without the TypeScript client (curl, another
 * service): `POST …/workflows/<name>/start` starts an instance as `client.start` does (422
 * REJECTED, nothing enqueued, for an id that runs or ran with another input), and
 * `GET …/workflows/<name>/<id>` reads its status, output or error as `client.workflowStatus`
 * does, under the same rule: the workflow's `authorize` with `{ action: 'read', id }`. With
 * `?waitMs=<ms>` the read waits, up to that long, for the instance to settle (end, or pause):
 * a long poll, so a caller waits for the result without reading in a tight loop.
 */
import {
  type AnyActorDefinition,
  type AnyWorkflowDefinition,
  BatonError,
  type Caller,
  ErrorCode,
  isTrusted,
  type WorkflowStatus,
  type WorkflowSummary,
} from '@baton/core';
import { parseTraceparent, workflowOf } from '@baton/core/adapter';
import type { Client } from '@baton/core/client';
import { badRequest, type HttpResponse, json } from './httpErrors.ts';
import { jsonBody, unknownKeys } from './jsonBody.ts';

/** A workflow route a request names. */
export type WorkflowRoute =
  | { readonly action: 'start'; readonly workflow: string }
  | { readonly action: 'read'; readonly workflow: string; readonly id: string };

/** What a workflow route needs of the ingress: its client, and who sent the request. */
export interface WorkflowRouteContext {
  readonly client: Client;
  readonly maxBodyBytes: number;
  /** The longest `waitMs` a read may ask for (the ingress's `askTimeoutMs`). */
  readonly maxWaitMs: number;
  readonly identify: () => Promise<Caller>;
}

/** A request to a workflow route, as the ingress holds it. */
interface RouteRequest {
  readonly body: string;
  readonly bodyBytes?: number;
  readonly query?: string;
  readonly headers?: Readonly<Record<string, string | undefined>>;
}

/**
 * The workflow route of `method path`, if it names one: `POST …/workflows/<name>/start`, or
 * `GET …/workflows/<name>/<id>` (the id `%`-escaped).
 */
export function workflowRoute(method: string, path: string): WorkflowRoute | undefined {
  const match = /\/workflows\/([^/]+)\/([^/]+)$/.exec(path);
  if (!match) return undefined;
  const workflow = decodeSegment(match[1]!);
  if (method === 'POST' && match[2] === 'start') return { action: 'start', workflow };
  if (method === 'GET') return { action: 'read', workflow, id: decodeSegment(match[2]!) };
  return undefined;
}

/** The app's workflows, by name, from its actors (each workflow's instances are one type). */
export function workflowsOf(
  actors: readonly AnyActorDefinition[],
): ReadonlyMap<string, AnyWorkflowDefinition> {
  const workflows = new Map<string, AnyWorkflowDefinition>();
  for (const actor of actors) {
    const definition = workflowOf(actor);
    if (definition) workflows.set(definition.name, definition);
  }
  return workflows;
}

/** Answers a workflow route. */
export async function answerWorkflowRoute(
  route: WorkflowRoute,
  request: RouteRequest,
  workflows: ReadonlyMap<string, AnyWorkflowDefinition>,
  context: WorkflowRouteContext,
): Promise<HttpResponse> {
  if (route.action === 'start') {
    const body = parseStart(request, context.maxBodyBytes);
    const caller = await context.identify();
    const definition = reachable(workflows, route.workflow, caller);
    const traceparent = request.headers?.traceparent;
    const sent = await context.client.send(
      definition.ref(body.id) as never,
      'start' as never,
      { input: body.input } as never,
      {
        caller,
        ...(body.idempotencyKey === undefined ? {} : { idempotencyKey: body.idempotencyKey }),
        ...(parseTraceparent(traceparent) ? { traceparent } : {}),
      },
    );
    return json(202, { id: body.id, ...sent });
  }
  const waitMs = waitOf(request.query, context.maxWaitMs);
  const caller = await context.identify();
  const definition = reachable(workflows, route.workflow, caller);
  // FORBIDDEN unless the workflow lets this caller read this instance.
  const read = () => context.client.workflowStatus(definition.ref(route.id), { caller });
  const summary = await settledWithin(read, waitMs);
  if (summary.status === 'new') {
    throw new BatonError(
      ErrorCode.NOT_FOUND,
      `workflow "${definition.name}" has no instance "${route.id}": it was never started (a start sent moments ago may not be applied yet: read again), or it ended and its retention is over; start it with POST /workflows/${definition.name}/start {"id", "input"}`,
      { details: { workflow: definition.name, id: route.id } },
    );
  }
  return json(200, summary);
}

/** The statuses a waiting read returns at once: the final ones, and a pause, which waits for a deploy. */
const SETTLED: ReadonlySet<WorkflowStatus> = new Set([
  'paused',
  'completed',
  'failed',
  'cancelled',
  'terminated',
]);

/**
 * How long a waiting read waits for an instance that reads `new`: a start just sent is applied
 * within moments (one queue hop, a worker's cold start), and an id never started answers then,
 * not at the end of the wait, which would hold an ingress function for nothing (a caller could
 * tie up every one of them with reads of ids it never started).
 */
const NEW_GRACE_MS = 3_000;

/**
 * Reads until the instance settles or `waitMs` passes, backing off from 10 ms to 500 ms between
 * reads (as `client.result` does); then the last read, whatever its status. A `new` instance is
 * waited for too, for at most {@link NEW_GRACE_MS}: a start just sent may not be applied yet.
 */
async function settledWithin(
  read: () => Promise<WorkflowSummary>,
  waitMs: number,
): Promise<WorkflowSummary> {
  const deadline = Date.now() + waitMs;
  const graceEnds = Date.now() + NEW_GRACE_MS;
  let delay = 10;
  for (;;) {
    const summary = await read();
    const left = deadline - Date.now();
    if (SETTLED.has(summary.status) || left <= 0) return summary;
    if (summary.status === 'new' && Date.now() >= graceEnds) return summary;
    await new Promise((resolve) => setTimeout(resolve, Math.min(delay, left)));
    delay = Math.min(delay * 2, 500);
  }
}

/** A read's `waitMs`: 0 when absent; a whole number of ms up to `maxWaitMs`, else 400. */
function waitOf(query: string | undefined, maxWaitMs: number): number {
  const given = new URLSearchParams(query ?? '').get('waitMs');
  if (given === null) return 0;
  const waitMs = Number(given);
  if (!/^\d+$/.test(given) || waitMs > maxWaitMs) {
    throw badRequest(
      `waitMs must be a whole number of milliseconds from 0 to ${maxWaitMs} (the ingress's askTimeoutMs), not "${given}": to wait longer, read again`,
      { waitMs: given, maxWaitMs },
    );
  }
  return waitMs;
}

/**
 * The workflow `name` names, if this caller may reach it: a public one, or any for trusted code.
 * An internal workflow reads to others as unknown (404), so its name is not theirs to learn.
 */
function reachable(
  workflows: ReadonlyMap<string, AnyWorkflowDefinition>,
  name: string,
  caller: Caller,
): AnyWorkflowDefinition {
  const definition = workflows.get(name);
  if (definition && (definition.public === true || isTrusted(caller))) return definition;
  const open = [...workflows.values()].filter((w) => w.public === true).map((w) => w.name);
  throw new BatonError(
    ErrorCode.NOT_FOUND,
    `no workflow "${name}" takes requests from clients (${open.length > 0 ? `workflows that do: ${open.join(', ')}` : 'this app has none: declare one with public: true'})`,
    { details: { workflow: name } },
  );
}

/** The keys of a start's body. */
const START_KEYS: ReadonlySet<string> = new Set(['id', 'input', 'idempotencyKey']);
const START_SHAPE = {
  example: '{"id": "order-17", "input": {...}}',
  keys: '{"id", "input", "idempotencyKey"}',
};

interface StartRequest {
  readonly id: string;
  readonly input: unknown;
  readonly idempotencyKey?: string;
}

function parseStart(request: RouteRequest, maxBodyBytes: number): StartRequest {
  const body = jsonBody(request, maxBodyBytes, START_SHAPE);
  const { id, input, idempotencyKey } = body;
  const problems: string[] = [];
  if (typeof id !== 'string' || id.length === 0) {
    problems.push('"id" must be the instance id, a non-empty string');
  }
  if (idempotencyKey !== undefined && typeof idempotencyKey !== 'string') {
    problems.push('"idempotencyKey" must be a string');
  }
  if (problems.length > 0) {
    const unknown = unknownKeys(body, START_KEYS);
    if (unknown) problems.push(unknown.problem);
    throw badRequest(`invalid start: ${problems.join('; ')}`, {
      problems,
      ...(unknown ? { unknown: unknown.unknown } : {}),
    });
  }
  return {
    id: id as string,
    input,
    ...(idempotencyKey === undefined ? {} : { idempotencyKey: idempotencyKey as string }),
  };
}

/** A `%`-escaped path segment; a malformed escape is the client's mistake (400). */
function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw badRequest(
      'a workflow route is /workflows/<name>/<id> with the id %-escaped: encode it with encodeURIComponent',
    );
  }
}
