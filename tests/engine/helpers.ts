/**
 * A small harness for driving the turn engine on the embedded backend: a virtual clock, a
 * worker, a client, and `run()`, which polls until the inbox is empty, moving the virtual
 * clock to the next message when everything left is hidden (released for a retry).
 */
import {
  type AnyActorDefinition,
  type AnyEffectDefinition,
  type Logger,
  silentLogger,
} from '@baton/core';
import {
  type ActorRecord,
  actorMessageId,
  type Clock,
  type Random,
  type Store,
  type StoreLimits,
} from '@baton/core/adapter';
import { Client } from '@baton/core/client';
import { createEngine, type Engine, type TurnListener, Worker } from '@baton/core/engine';
import { createEmbeddedBackend, type EmbeddedBackend } from '@baton/embedded';

export interface VirtualClock extends Clock {
  /** Moves time forward by `ms`. */
  advance(ms: number): void;
  /** Sets the time; never backwards. */
  set(at: number): void;
}

export const START = Date.UTC(2025, 0, 1);

export function virtualClock(start = START): VirtualClock {
  let t = start;
  return {
    now: () => t,
    advance(ms) {
      t += ms;
    },
    set(at) {
      t = Math.max(t, at);
    },
  };
}

/** Lets pending promise continuations run (the embedded backend settles everything at once). */
export function flush(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

export interface SetupOptions {
  readonly actors: readonly AnyActorDefinition[];
  readonly effects?: readonly AnyEffectDefinition[];
  readonly limits?: Partial<StoreLimits>;
  readonly random?: Random;
  readonly batchSize?: number;
  readonly cacheSize?: number;
  readonly maxAttempts?: number;
  /** The inbox queue's own dead-lettering. @default none */
  readonly maxReceives?: number;
  /** @default silent */
  readonly logger?: Logger;
  readonly onTurn?: TurnListener;
}

export interface Harness {
  readonly clock: VirtualClock;
  readonly backend: EmbeddedBackend;
  readonly engine: Engine;
  readonly worker: Worker;
  readonly client: Client;
  /** Polls until the inbox is empty; returns the number of polls that received something. */
  run(): Promise<number>;
  /** The committed state of an actor, or undefined if it never committed. */
  state(actorId: string): Promise<unknown>;
  record(actorId: string): Promise<ActorRecord | undefined>;
}

export function setup(options: SetupOptions): Harness {
  const clock = virtualClock();
  const backend = createEmbeddedBackend({
    clock,
    ...(options.limits ? { limits: options.limits } : {}),
    ...(options.maxReceives ? { queue: { maxReceives: options.maxReceives } } : {}),
  });
  const engine = createEngine({
    actors: options.actors,
    ...(options.effects ? { effects: options.effects } : {}),
    store: backend.store,
    queue: backend.queue,
    clock,
    logger: options.logger ?? silentLogger,
    ...(options.random ? { random: options.random } : {}),
    ...(options.batchSize ? { batchSize: options.batchSize } : {}),
    ...(options.cacheSize !== undefined ? { cacheSize: options.cacheSize } : {}),
    ...(options.maxAttempts !== undefined ? { maxAttempts: options.maxAttempts } : {}),
    ...(options.onTurn ? { onTurn: options.onTurn } : {}),
  });
  const worker = new Worker(engine);
  const client = new Client({
    actors: options.actors,
    store: backend.store,
    queue: backend.queue,
    clock,
    askTimeoutMs: 5_000,
    // The engine's tests send as trusted code: any message, internal ones included.
  }).asSystem();
  return {
    clock,
    backend,
    engine,
    worker,
    client,
    run: () => runUntilIdle(worker, backend, clock),
    state: async (actorId) => (await backend.store.load(actorId))?.state,
    record: (actorId) => backend.store.load(actorId),
  };
}

/**
 * Polls `worker` until the inbox is empty. When nothing is receivable but messages wait (a
 * release for a retry, a visibility timeout), moves the virtual clock to the next one.
 */
export async function runUntilIdle(
  worker: Worker,
  backend: EmbeddedBackend,
  clock: VirtualClock,
  maxPolls = 1_000,
): Promise<number> {
  await flush();
  let polls = 0;
  for (let i = 0; i < maxPolls; i++) {
    const received = await worker.poll();
    if (received > 0) {
      polls++;
      continue;
    }
    await flush();
    const next = backend.queue.nextVisibleAt();
    if (next === undefined) return polls;
    clock.set(next);
  }
  throw new Error(`the inbox was not empty after ${maxPolls} polls`);
}

/** Collects the committed records of one actor from the change feed. */
export function commitsOf(backend: EmbeddedBackend, actorId: string): ActorRecord[] {
  const commits: ActorRecord[] = [];
  backend.feed.subscribe((record) => {
    if (record.id === actorId) commits.push(record);
  });
  return commits;
}

/**
 * Settles a promise into a value, attaching the handlers at once so that a rejection that
 * happens while the test drives the worker is not reported as unhandled.
 */
export function settled<T>(
  promise: Promise<T>,
): Promise<{ ok: true; value: T } | { ok: false; error: unknown }> {
  return promise.then(
    (value) => ({ ok: true as const, value }),
    (error: unknown) => ({ ok: false as const, error }),
  );
}

/** Runs `h`'s worker until `call` (an ask) has its answer, and returns it (or throws its error). */
export async function answered<T>(h: Pick<Harness, 'run'>, call: Promise<T>): Promise<T> {
  const result = settled(call);
  await h.run();
  const outcome = await result;
  if (!outcome.ok) throw outcome.error;
  return outcome.value;
}

/**
 * `store` without `heldDrained`, as DynamoDB's store is: a record keeps the sends it holds after
 * they were drained, until its next commit or the sweeper retires them.
 */
export function keepingDrainedSends(store: Store): Store {
  return new Proxy(store, {
    get: (target, prop) => {
      if (prop === 'heldDrained') return undefined;
      const value = Reflect.get(target, prop, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

/**
 * `store` whose first `readTimer` runs `meanwhile` after it read: what a turn commits between an
 * operator's read and its commit.
 */
export function racingReadTimer(store: Store, meanwhile: () => Promise<void>): Store {
  let raced = false;
  return new Proxy(store, {
    get: (target, prop) => {
      const value = Reflect.get(target, prop, target);
      if (prop === 'readTimer') {
        return async (actorId: string, id: string) => {
          const read = await target.readTimer(actorId, id);
          if (!raced) {
            raced = true;
            await meanwhile();
          }
          return read;
        };
      }
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

/** The id of the `seq`-th message `actorId` sent in its current life (as stored now). */
export async function sentId(h: Pick<Harness, 'record'>, actorId: string, seq: number) {
  const record = await h.record(actorId);
  return actorMessageId(actorId, seq, record?.life);
}

/** A log line a {@link recordingLogger} kept. */
export interface LogLine {
  readonly level: 'warn' | 'error';
  readonly message: string;
  readonly fields: Record<string, unknown>;
}

/** A logger that keeps its warnings and errors, each with its fields merged. */
export function recordingLogger(): { logger: Logger; lines: LogLine[] } {
  const lines: LogLine[] = [];
  const at =
    (level: LogLine['level']) =>
    (message: string, ...fields: Array<Record<string, unknown>>) => {
      lines.push({ level, message, fields: Object.assign({}, ...fields) });
    };
  const ignore = () => {};
  return { logger: { debug: ignore, info: ignore, warn: at('warn'), error: at('error') }, lines };
}
