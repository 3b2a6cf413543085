import { type AnyQueryDefinition, type BatonError, withheld } from '@baton/core';
import { resumeFloor } from '@baton/protocol';
import { hashText } from './evaluation/hashText.ts';
import { movedPast, type ReadPosition, withNewest } from './evaluation/ReadPosition.ts';
import type { QueryError, QueryResult, QueryUpdate, ResumeAnswer } from './QueryUpdate.ts';

/** One subscriber of an instance. */
export interface Subscriber {
  readonly instance: QueryInstance;
  readonly listener: (update: QueryUpdate) => void;
  /** Lease length; `undefined` for a subscription that lasts until unsubscribed. */
  readonly leaseMs: number | undefined;
  expiresAt: number;
  /** The update this subscriber was last given (so it never gets one twice, nor an older one). */
  last: QueryUpdate | undefined;
  active: boolean;
}

/** How a run ended: the canonical JSON of its result, or the error it threw. */
export type RunOutcome =
  | { readonly ok: true; readonly text: string }
  | {
      readonly ok: false;
      readonly error: BatonError;
      /** Not a BatonError: a bug in the query rather than a refusal or an outage. */
      readonly unexpected: boolean;
    };

/** Called when a listener throws; the other listeners still get the update. */
export type ListenerErrorHandler = (error: unknown, instance: QueryInstance) => void;

/** A read still in flight: any commit on the feed meanwhile may have been missed. */
const IN_FLIGHT = 'in flight';

/**
 * One shared computation: a query with canonical args in one identity scope, its subscribers,
 * the versions (and lives) of the actors its last run read, and its newest result.
 *
 * Lifecycle: `idle` → (a dependency changed) `pending` → `running` → `idle`. A change during a
 * run marks the run `dirty`: its result is already stale, so the engine runs it again.
 *
 * @example
 * const instance = new QueryInstance('key', totalBalance, { accounts: ['a'] }, undefined);
 * const run = instance.beginRun();
 * instance.beginRead(run, 'account/a');
 * instance.endRead(run, 'account/a', { ver: 3, life: 'k3x9q0m2a7bz' });
 * instance.endRun(); // { dropped: [], dirty: false }
 */
export class QueryInstance {
  readonly subscribers = new Set<Subscriber>();
  /** Actor id → the version and life the last completed run read. */
  deps = new Map<string, ReadPosition>();
  state: 'idle' | 'pending' | 'running' = 'idle';
  closed = false;
  /** Stale results skipped in a row (bounded, so a hot actor cannot starve subscribers). */
  skips = 0;
  /** The delay before retrying after a retryable failure; 0 after a success. */
  retryDelayMs = 0;
  retryTimer: ReturnType<typeof setTimeout> | undefined;
  #run = 0;
  #reads: Map<string, ReadPosition | typeof IN_FLIGHT> | undefined;
  /** Of the last run's dependencies, those the run in progress has not read (yet). */
  #unread = 0;
  /** Commits the feed delivered while a read was in flight, by actor id. */
  #seen = new Map<string, ReadPosition[]>();
  #dirty = false;
  #version = 0;
  #lastResult: QueryResult | undefined;
  #current: QueryUpdate | undefined;

  constructor(
    readonly key: string,
    readonly definition: AnyQueryDefinition,
    readonly args: unknown,
    readonly identity: unknown,
    /** The identity scope whose reads it counts against. */
    readonly scope = '',
  ) {}

  /** The newest update: what every subscriber has been (or is being) given. */
  get current(): QueryUpdate | undefined {
    return this.#current;
  }

  /** Actor ids of the last run and of the run in progress: the index entries to remove on drop. */
  actorIds(): string[] {
    return [...new Set([...this.deps.keys(), ...(this.#reads?.keys() ?? [])])];
  }

  beginRun(): number {
    this.state = 'running';
    this.#reads = new Map();
    this.#unread = this.deps.size;
    this.#seen.clear();
    this.#dirty = false;
    return ++this.#run;
  }

  /** Records a read that starts in run `run`; false if that run is over (nothing to record). */
  beginRead(run: number, actorId: string): boolean {
    if (run !== this.#run || !this.#reads || this.#reads.has(actorId)) return false;
    this.#reads.set(actorId, IN_FLIGHT);
    if (this.deps.has(actorId)) this.#unread--;
    return true;
  }

  /**
   * How many of its index entries the run in progress leaves: the last run's reads it has not
   * read again (yet), dropped when it ends unless it reads them still. 0 between runs.
   */
  get leaving(): number {
    return this.#reads ? this.#unread : 0;
  }

  endRead(run: number, actorId: string, at: ReadPosition): void {
    if (run !== this.#run || !this.#reads) return;
    this.#reads.set(actorId, at);
    if (this.#seen.get(actorId)?.some((seen) => movedPast(seen, at))) this.#dirty = true;
  }

  /** Replaces the dependencies with the run's reads; returns the actor ids no longer read. */
  endRun(): { dropped: string[]; dirty: boolean } {
    const reads = new Map<string, ReadPosition>();
    // A read still in flight when the run ended: any commit of its actor runs the query again.
    for (const [id, at] of this.#reads ?? []) reads.set(id, at === IN_FLIGHT ? { ver: -1 } : at);
    const dropped = [...this.deps.keys()].filter((id) => !reads.has(id));
    this.deps = reads;
    this.#reads = undefined;
    this.#seen.clear();
    this.state = 'idle';
    return { dropped, dirty: this.#dirty };
  }

  /**
   * A commit of `actorId` at `at` was seen. Returns true if the instance must be scheduled (it
   * was idle and read an older version, or another life); while running, it remembers that the
   * run is stale.
   */
  onChange(actorId: string, at: ReadPosition): boolean {
    if (this.closed) return false;
    if (this.state === 'running') {
      const read = this.#reads?.get(actorId);
      // Not read yet in this run: when it is, the read sees this commit or a newer one.
      if (read === undefined) return false;
      if (read === IN_FLIGHT)
        this.#seen.set(actorId, withNewest(this.#seen.get(actorId) ?? [], at));
      else if (movedPast(at, read)) this.#dirty = true;
      return false;
    }
    if (this.state === 'pending') return false;
    const read = this.deps.get(actorId);
    return read !== undefined && movedPast(at, read);
  }

  /** Marks the run in progress stale: its result will not be pushed. */
  invalidate(): void {
    if (this.state === 'running') this.#dirty = true;
  }

  /** Turns a run's outcome into the update to push, or `undefined` if subscribers have it already. */
  settle(outcome: RunOutcome): QueryUpdate | undefined {
    const current = this.#current;
    if (!outcome.ok) {
      // Logged whole by the engine; subscribers see no unexpected error's text.
      const error = withheld(outcome.error).toJSON();
      if (current?.kind === 'error' && sameError(current, error)) return undefined;
      this.#current = { kind: 'error', error };
      return this.#current;
    }
    const hash = hashText(outcome.text);
    if (current?.kind === 'result' && current.hash === hash) return undefined;
    if (this.#lastResult?.hash !== hash) {
      const value = deepFreeze(JSON.parse(outcome.text));
      this.#lastResult = { kind: 'result', version: ++this.#version, hash, value };
    }
    this.#current = this.#lastResult;
    return this.#current;
  }

  /** Gives `update` to every subscriber that does not have it yet; returns how many got it. */
  fanOut(update: QueryUpdate, onError: ListenerErrorHandler): number {
    let pushes = 0;
    for (const subscriber of this.subscribers) {
      if (this.deliver(subscriber, update, onError)) pushes++;
    }
    return pushes;
  }

  /** Gives `update` to one subscriber unless it has it already or left; true if it was given. */
  deliver(subscriber: Subscriber, update: QueryUpdate, onError: ListenerErrorHandler): boolean {
    if (subscriber.last === update || !subscriber.active) return false;
    subscriber.last = update;
    try {
      subscriber.listener(update);
    } catch (error) {
      onError(error, this);
    }
    return true;
  }

  /**
   * Answers a reconnecting client that last saw `(lastVersion, hash)`. Versions restart when a
   * server does, so the instance's version is first raised to the client's (at most to
   * `MAX_RESUME_VERSION`: the instance is shared), keeping the versions a client sees increasing.
   */
  resume(lastVersion: number, hash: string): ResumeAnswer | undefined {
    const current = this.#current;
    if (!current) return undefined;
    if (current.kind === 'error') return current;
    const unchanged = current.hash === hash;
    const floor = resumeFloor({ version: lastVersion, hash }, current.hash);
    if (this.#version < floor) {
      this.#version = floor;
      this.#lastResult = { ...current, version: floor };
      this.#current = this.#lastResult;
    }
    if (unchanged) return 'unchanged';
    const { version, value } = this.#lastResult!;
    return { kind: 'full', version, hash: current.hash, value };
  }
}

function sameError(a: QueryError, b: QueryError['error']): boolean {
  return a.error.code === b.code && a.error.message === b.message;
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}
