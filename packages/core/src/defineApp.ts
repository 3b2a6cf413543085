/**
 * `defineApp()`: an app in one value — its actor types, its live queries and the auth hook of its
 * WebSocket connections — in the shape that deployments and hosts take (the CDK construct's
 * `entry` module exports it; the Lambda handlers built from the environment take it).
 */
import type { AnyActorDefinition } from './actor.ts';
import type { AnyEffectDefinition } from './effect.ts';
import { invalidArgument } from './errors.ts';
import type { AnyQueryDefinition } from './query.ts';
import { builtInQueries } from './workflow/builtInQueries.ts';
import type { AnyWorkflowDefinition } from './workflow/workflow.ts';

/**
 * What a WebSocket connection attempt offers the auth hook: the token from `?token=` or the
 * `token.<token>` subprotocol, and the handshake's headers.
 */
export interface ConnectRequest {
  readonly token?: string;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  /**
   * Ends the connection's identity at `epochMs` (epoch milliseconds; a JWT's `exp` is seconds,
   * so `exp * 1000`): from then its frames are refused and it gets no more results, and the
   * server closes it so that the client connects again with a fresh token. Call it before the
   * hook returns; the earliest of several calls counts; a time already past refuses the
   * connection (or the HTTP request). `jwtAuth` calls it with the token's `exp`. Every door of
   * Baton's passes it.
   */
  readonly validUntil?: (epochMs: number) => void;
  /**
   * Aborted when the host stops waiting for the hook: the local WebSocket host's
   * `authTimeoutMs` passed (the connection is closed), or the host closes. Pass it to what the
   * hook awaits (`fetch(url, { signal })`). Hosts that bound the hook otherwise (a Lambda's
   * timeout) pass none.
   */
  readonly signal?: AbortSignal;
}

/**
 * An app as {@link defineApp} returns it.
 *
 * @example
 * const app: BatonApp = defineApp({ actors: [Account], queries: [balances] });
 */
export interface BatonApp<Identity = unknown> {
  /** The app's actor types, and its workflows' (one reserved type each, `wf-<name>`). */
  readonly actors: readonly AnyActorDefinition[];
  /** The app's workflows. */
  readonly workflows: readonly AnyWorkflowDefinition[];
  readonly queries: readonly AnyQueryDefinition[];
  /** The effects handlers may ask for (`ctx.effect`), run by the workers. */
  readonly effects: readonly AnyEffectDefinition[];
  /**
   * Put before every effect's idempotency key, so that apps or stages sharing an outside
   * service never send it the same key (the engine's `effectKeyNamespace`), e.g.
   * `process.env.STAGE`.
   */
  readonly effectKeyNamespace?: string;
  /**
   * Turns a WebSocket connection attempt into the identity queries see as `ctx.identity`; throw
   * (or reject) to refuse it. Without one every connection is accepted, with identity `undefined`.
   */
  readonly auth?: (request: ConnectRequest) => Identity | Promise<Identity>;
}

/**
 * Checks an app's parts once, collecting every problem into one INVALID_ARGUMENT error, and
 * returns it unchanged: actor type names and query names must each be unique.
 *
 * @example
 * // app.ts — the module a deployment's `entry` names
 * export default defineApp({
 *   actors: [Account],
 *   queries: [balances],
 *   auth: async ({ token }) => ({ userId: (await sessions.verify(token)).userId }),
 * });
 */
export function defineApp<Identity = unknown>(app: {
  readonly actors?: readonly AnyActorDefinition[];
  /**
   * Durable workflows (`workflow()`): their actor types join `actors`, and the built-in
   * queries `workflowStatus` and `workflowHistory` join `queries`.
   */
  readonly workflows?: readonly AnyWorkflowDefinition[];
  readonly queries?: readonly AnyQueryDefinition[];
  readonly effects?: readonly AnyEffectDefinition[];
  readonly effectKeyNamespace?: string;
  readonly auth?: (request: ConnectRequest) => Identity | Promise<Identity>;
}): BatonApp<Identity> {
  const problems: string[] = [];
  const workflows = app?.workflows ?? [];
  if (!Array.isArray(workflows) || workflows.some((w) => w?.kind !== 'workflow')) {
    problems.push('workflows must be an array of workflow()s');
  }
  const actors = [
    ...(Array.isArray(app?.actors) ? app.actors : []),
    ...(Array.isArray(workflows) ? workflows.map((w) => w?.actor) : []),
  ];
  if (app?.actors !== undefined && !Array.isArray(app.actors)) {
    problems.push('actors must be an array of actor()s');
  } else if (actors.length === 0) {
    problems.push('actors must be a non-empty array of actor()s (or pass workflows)');
  }
  const queries = [
    ...(Array.isArray(app?.queries) ? app.queries : []),
    ...(Array.isArray(workflows) && workflows.length > 0 ? builtInQueries(workflows) : []),
  ];
  if (app?.queries !== undefined && !Array.isArray(app.queries)) {
    problems.push('queries must be an array of query()s');
  }
  if (app?.effects !== undefined && !Array.isArray(app.effects)) {
    problems.push('effects must be an array of effect()s');
  }
  const namespace = app?.effectKeyNamespace;
  if (namespace !== undefined && (typeof namespace !== 'string' || namespace === '')) {
    problems.push('effectKeyNamespace must be a non-empty string, e.g. the stage');
  }
  if (app?.auth !== undefined && typeof app.auth !== 'function') {
    problems.push('auth must be a function ({ token, headers }) => identity');
  }
  const duplicates = (kind: string, names: readonly string[]) => {
    const seen = new Set<string>();
    for (const name of names) {
      if (seen.has(name)) problems.push(`two ${kind} are named ${JSON.stringify(name)}`);
      seen.add(name);
    }
  };
  duplicates(
    'actor types',
    actors.map((a) => a?.name),
  );
  duplicates(
    'queries',
    queries.map((q) => q?.name),
  );
  if (Array.isArray(app?.effects))
    duplicates(
      'effects',
      app.effects.map((e) => e?.name),
    );
  if (problems.length > 0) {
    throw invalidArgument(`invalid app: ${problems.join('; ')}`, { problems });
  }
  return {
    actors,
    workflows,
    queries,
    effects: app.effects ?? [],
    ...(namespace === undefined ? {} : { effectKeyNamespace: namespace }),
    ...(app.auth ? { auth: app.auth } : {}),
  };
}
