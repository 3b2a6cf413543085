import { BatonError, ErrorCode, type SerializedError, withheld } from '@baton/core';
import { encodeMessage, PROTOCOL_VERSION, type ServerMessage } from '@baton/protocol';
import type { QueryUpdate } from '@baton/server';
import {
  evaluateQuery,
  hashText,
  movedPast,
  positionOf,
  type ReadPosition,
  samePosition,
} from '@baton/server/evaluation';
import type { Pusher } from './Pusher.ts';
import {
  type InstanceChange,
  type InstanceItem,
  instanceItemBytes,
  MAX_INSTANCE_ITEM_BYTES,
} from './registry/Instances.ts';
import type { ReactiveContext } from './WebSocketOptions.ts';

/**
 * An instance after a run: what its subscribers should hold, and whether that changed (so that
 * every subscriber must be sent it).
 *
 * @example
 * const refreshed: Refreshed = { instance, update: { kind: 'result', version: 2, hash, value }, changed: true };
 */
export interface Refreshed {
  readonly instance: InstanceItem;
  readonly update: QueryUpdate;
  readonly changed: boolean;
}

/** Attempts before a run gives up on a contended instance (another handler keeps winning). */
const MAX_ATTEMPTS = 5;

/**
 * Runs an instance's query once against committed state and stores the outcome: a result whose
 * hash differs bumps the version (at least to `floor(hash)`, so a resuming client never sees its
 * version go back), the reads replace the dependencies. The write is conditional on the
 * instance's `rev`; when another handler wrote first, the instance is reloaded and run again.
 * Returns `undefined` if the instance is gone. A retryable failure (a store outage) throws.
 *
 * @example
 * const refreshed = await refreshInstance(context, instance);
 * if (refreshed?.changed) await fanOut(context, pusher, refreshed);
 */
export async function refreshInstance(
  context: ReactiveContext,
  start: InstanceItem,
  floor: (hash: string | undefined) => number = () => 0,
): Promise<Refreshed | undefined> {
  let instance: InstanceItem | undefined = start;
  let changedBefore = false;
  for (let attempt = 0; attempt < MAX_ATTEMPTS && instance; attempt++) {
    const { update, hash, failed, deps } = await run(context, instance);
    const version =
      update.kind === 'result' && hash !== instance.hash
        ? Math.max(instance.version + 1, floor(hash))
        : Math.max(instance.version, floor(hash));
    const changed: boolean = changedBefore || hash !== instance.hash || failed !== instance.failed;
    const stored = update.kind === 'result' ? { ...update, version } : update;
    const next = { version, hash, failed, deps };
    if (sameRun(instance, next)) return { instance, update: stored, changed };
    if (!(await context.registry.instances.saveRun(instance, next))) {
      instance = await context.registry.instances.get(instance.id);
      continue;
    }
    const saved = { ...instance, ...next, rev: instance.rev + 1 };
    // A commit between a new dependency's read and its dependency item went unseen: run again.
    if (!(await movedSince(context, deps, instance.deps))) {
      return { instance: saved, update: stored, changed };
    }
    instance = saved;
    changedBefore = changed;
  }
  if (!instance) return undefined;
  throw new BatonError(
    ErrorCode.UNAVAILABLE,
    `query instance ${instance.id} kept changing under ${MAX_ATTEMPTS} runs; retry`,
    { retryAfterMs: 100 },
  );
}

function sameRun(instance: InstanceItem, next: InstanceChange): boolean {
  const keys = Object.keys(next.deps);
  return (
    next.version === instance.version &&
    next.hash === instance.hash &&
    next.failed === instance.failed &&
    keys.length === Object.keys(instance.deps).length &&
    keys.every((key) => samePosition(next.deps[key], instance.deps[key]))
  );
}

/** Whether an actor read for the first time (not in `before`) has committed past its read. */
async function movedSince(
  context: ReactiveContext,
  deps: Readonly<Record<string, ReadPosition>>,
  before: Readonly<Record<string, ReadPosition>>,
): Promise<boolean> {
  const added = Object.entries(deps).filter(([actorId]) => !(actorId in before));
  const moved = await Promise.all(
    added.map(async ([actorId, read]) =>
      movedPast(positionOf(await context.env.store.load(actorId)), read),
    ),
  );
  return moved.some(Boolean);
}

async function run(context: ReactiveContext, instance: InstanceItem) {
  const definition = context.queries.get(instance.query);
  if (!definition) {
    const error = new BatonError(ErrorCode.NOT_FOUND, `unknown query "${instance.query}"`);
    return failure(error.toJSON(), instance);
  }
  const args = JSON.parse(instance.args);
  const { outcome, reads } = await evaluateQuery(definition, args, instance.identity, context.env);
  const deps = Object.fromEntries(reads);
  const bytes = instanceItemBytes(instance, {
    version: 0,
    hash: undefined,
    failed: undefined,
    deps,
  });
  if (bytes > MAX_INSTANCE_ITEM_BYTES) {
    return failure(instanceTooLarge(instance, reads.size, bytes).toJSON(), instance);
  }
  if (!outcome.ok) {
    if (outcome.error.code === ErrorCode.UNAVAILABLE) throw outcome.error;
    if (outcome.unexpected) {
      context.logger.error('a query threw', {
        query: instance.query,
        error: outcome.error.message,
      });
    }
    return { ...failure(withheld(outcome.error).toJSON(), instance), deps };
  }
  const hash = hashText(outcome.text);
  const value: unknown = JSON.parse(outcome.text);
  const update: QueryUpdate = { kind: 'result', version: instance.version, hash, value };
  return { update, hash, failed: undefined, deps };
}

/** LIMIT_EXCEEDED: a run read more than its instance's item can list. */
function instanceTooLarge(instance: InstanceItem, reads: number, bytes: number): BatonError {
  return new BatonError(
    ErrorCode.LIMIT_EXCEEDED,
    `query "${instance.query}" read ${reads} actors: with its args, the list of what it read takes ${bytes} bytes, more than a live query may keep (${MAX_INSTANCE_ITEM_BYTES}). Read fewer actors, with shorter keys, or pass smaller args`,
    { details: { query: instance.query, reads, bytes, maxBytes: MAX_INSTANCE_ITEM_BYTES } },
  );
}

function failure(error: SerializedError, instance: InstanceItem) {
  const update: QueryUpdate = { kind: 'error', error };
  const failed = hashText(JSON.stringify([error.code, error.message]));
  return { update, hash: instance.hash, failed, deps: {} as Record<string, ReadPosition> };
}

/**
 * The frame that gives `update` to subscription `id`.
 *
 * @example
 * await pusher.send(connectionId, updateFrame('s1', refreshed.update));
 */
export function updateFrame(id: string, update: QueryUpdate): ServerMessage {
  return update.kind === 'result'
    ? { v: PROTOCOL_VERSION, type: 'result', id, ...pick(update) }
    : { v: PROTOCOL_VERSION, type: 'error', id, error: update.error };
}

function pick({ version, hash, value }: { version: number; hash: string; value: unknown }) {
  return { version, hash, value };
}

/**
 * Pushes an instance's update to every subscriber (those in `except` aside); returns how many
 * pushes succeeded. The frame is encoded once: subscribers differ only by their subscription
 * id. Each push is keyed by its subscription, so a newer update of it replaces one not yet sent.
 * Without `except`, the subscribers' connections are read 100 to a call, each hundred while
 * the ones before it post.
 *
 * @example
 * await fanOut(context, pusher, refreshed);
 */
export async function fanOut(
  context: ReactiveContext,
  pusher: Pusher,
  refreshed: Refreshed,
  except?: { readonly connectionId: string; readonly subscriptionId: string },
): Promise<number> {
  const subscribers = await context.registry.subscriptions.subscribers(refreshed.instance.id);
  const text = sharedFrame(refreshed.update);
  const targets = subscribers.filter(
    (s) => s.connectionId !== except?.connectionId || s.subscriptionId !== except.subscriptionId,
  );
  const pushes: Promise<boolean>[] = [];
  for (let i = 0; i < targets.length; i += CONNECTIONS_PER_READ) {
    const slice = targets.slice(i, i + CONNECTIONS_PER_READ);
    // The stream handler's fan-outs read their connections a slice at a time, while the
    // slices before post. A subscribe's (`except`) pushes to the others only a result the
    // stream handler has yet to push: rare, and read one by one.
    if (!except) await pusher.prefetch(slice.map((s) => s.connectionId));
    for (const s of slice) {
      pushes.push(
        text
          ? pusher.sendText(s.connectionId, `S#${s.subscriptionId}`, text(s.subscriptionId))
          : pusher.send(s.connectionId, updateFrame(s.subscriptionId, refreshed.update)),
      );
    }
  }
  const sent = await Promise.all(pushes);
  return sent.filter(Boolean).length;
}

/** Connections a fan-out reads in one call (`BatchGetItem`'s most). */
const CONNECTIONS_PER_READ = 100;

/**
 * The update's frame, encoded once, for any subscription id (the id goes last); `undefined` if
 * it cannot be encoded (each push then reports it).
 */
function sharedFrame(update: QueryUpdate): ((id: string) => string) | undefined {
  const { id: _, ...frame } = updateFrame('', update) as ServerMessage & { id?: string };
  let head: string;
  try {
    head = encodeMessage(frame as ServerMessage).slice(0, -1);
  } catch {
    return undefined;
  }
  return (id) => `${head},"id":${JSON.stringify(id)}}`;
}
