import {
  type ActorRef,
  type AnyActorDefinition,
  type AnyQueryDefinition,
  BatonError,
  ErrorCode,
  isBatonError,
  toBatonError,
} from '@baton/core';
import {
  canonicalJson,
  createQueryContext,
  type Registry,
  readableState,
  type Store,
  upgradeState,
} from '@baton/core/adapter';
import { clip } from '@baton/core/shared';
import type { RunOutcome } from '../QueryInstance.ts';
import { positionOf, type ReadPosition } from './ReadPosition.ts';

/**
 * What a query run reads with: the actor types (for their initial state) and committed state.
 *
 * @example
 * const env: EvaluateEnvironment = { registry: new Registry([Account]), store };
 */
export interface EvaluateEnvironment {
  readonly registry: Registry;
  /** With `readOverflow`, `workflowHistory` reads entries moved out into pages too. */
  readonly store: Pick<Store, 'load'> & Partial<Pick<Store, 'readOverflow'>>;
}

/**
 * Told of each actor a run reads: before its record is loaded (once per actor per run) and
 * after, with the position read (version 0 for an actor never committed).
 *
 * @example
 * const observer: ReadObserver = { beforeLoad: (id) => index.add(id, instance) };
 */
export interface ReadObserver {
  beforeLoad?(actorId: string): void;
  afterLoad?(actorId: string, at: ReadPosition): void;
}

/**
 * Most actors one run of a query reads, and most bytes of their ids: a live query's dependencies
 * are kept with it (on API Gateway, in one registry item of at most 400 KB) and every change to
 * any of them runs it again. A run past either is LIMIT_EXCEEDED.
 */
export const MAX_QUERY_READS = 4_000;
export const MAX_QUERY_READ_ID_BYTES = 160 * 1024;

/**
 * A finished run: its outcome and the version of every actor it read (its dependencies).
 *
 * @example
 * const { outcome, reads } = await evaluateQuery(balance, { account: 'alice' }, undefined, env);
 * reads.get('account/alice'); // { ver: 3, life: 'k3x9q0m2a7bz' }
 */
export interface Evaluation {
  readonly outcome: RunOutcome;
  /**
   * Actor id → the version and life read; reads still in flight when the handler ended are
   * left out.
   */
  readonly reads: ReadonlyMap<string, ReadPosition>;
}

/**
 * Runs a query once against committed state, stateless: each `ctx.get` loads the actor's
 * record (once per run: later reads of it share the first) and records `(actor id, ver, life)`. The
 * result comes back as canonical JSON; a throwing handler gives its error (never rejects). The
 * local engine and the AWS WebSocket handlers share this one implementation.
 *
 * @example
 * const { outcome, reads } = await evaluateQuery(totalBalance, { accounts: ['a'] }, identity, {
 *   registry,
 *   store,
 * });
 * if (outcome.ok) console.log(outcome.text, [...reads]); // '{"currency":"EUR","total":5}'
 */
export async function evaluateQuery(
  definition: AnyQueryDefinition,
  args: unknown,
  identity: unknown,
  env: EvaluateEnvironment,
  observer: ReadObserver = {},
): Promise<Evaluation> {
  const loads = new Map<string, Promise<unknown>>();
  const reads = new Map<string, ReadPosition>();
  let idBytes = 0;
  const { store } = env;
  const ctx = createQueryContext({
    identity,
    ...(store.readOverflow
      ? {
          readPages: async (actorId: string, ids: readonly string[]) => {
            const keys = ids.map((peer) => ({ kind: 'page' as const, peer }));
            const found = (await store.readOverflow?.(actorId, keys)) ?? [];
            return new Map(found.map((page) => [page.peer, page.mark]));
          },
        }
      : {}),
    get: async (ref) => {
      checkRef(ref);
      const known = loads.get(ref.id);
      if (known) return known;
      idBytes += Buffer.byteLength(ref.id);
      if (loads.size >= MAX_QUERY_READS || idBytes > MAX_QUERY_READ_ID_BYTES) {
        throw tooManyReads(definition.name, loads.size);
      }
      const load = readActor(env, definition.name, ref, observer, reads);
      loads.set(ref.id, load);
      return load;
    },
  });
  let outcome: RunOutcome;
  try {
    const result = await definition.handler(ctx, args);
    outcome = { ok: true, text: canonicalJson(result, `the result of query "${definition.name}"`) };
  } catch (error) {
    outcome = { ok: false, error: toBatonError(error), unexpected: !isBatonError(error) };
  }
  return { outcome, reads: new Map(reads) };
}

async function readActor(
  env: EvaluateEnvironment,
  query: string,
  ref: ActorRef,
  observer: ReadObserver,
  reads: Map<string, ReadPosition>,
): Promise<unknown> {
  if (!env.registry.has(ref.type)) throw unregisteredRead(query, ref.type);
  const definition: AnyActorDefinition = env.registry.definition(ref.type);
  observer.beforeLoad?.(ref.id);
  const record = await env.store.load(ref.id);
  const at = positionOf(record);
  reads.set(ref.id, at);
  observer.afterLoad?.(ref.id, at);
  if (!record) return definition.initial(ref.key);
  const state = upgradeState(definition, record.state, record.stateVersion ?? 1, ref.id);
  return readableState(definition, state);
}

function tooManyReads(query: string, read: number): BatonError {
  return new BatonError(
    ErrorCode.LIMIT_EXCEEDED,
    `query "${query}" read ${read} actors, the most a run may read (${MAX_QUERY_READS}, with ${MAX_QUERY_READ_ID_BYTES} bytes of ids): a live query runs again whenever any actor it read changes. Read fewer: keep what the view needs in an actor of its own (an index or a summary the others send to), or page the view with its args`,
    { details: { query, read, maxReads: MAX_QUERY_READS, maxIdBytes: MAX_QUERY_READ_ID_BYTES } },
  );
}

/**
 * A query read an actor type its app does not register: the query's own fault. Its error goes to
 * every subscriber, so it names the type read and no other (the registry's error lists them all).
 */
function unregisteredRead(query: string, type: string): BatonError {
  return new BatonError(
    ErrorCode.UNKNOWN_ACTOR,
    `query "${query}" reads actor type "${clip(type)}", which the app does not register: add that actor to defineApp's actors, or fix the ref the query reads`,
    { details: { query, type: clip(type) } },
  );
}

function checkRef(ref: ActorRef): void {
  if (typeof ref?.id !== 'string' || typeof ref.type !== 'string' || typeof ref.key !== 'string') {
    throw new BatonError(
      ErrorCode.INVALID_REF,
      'ctx.get(ref) needs an actor ref, e.g. ctx.get(Account.ref(key))',
    );
  }
}
