import { BatonError, ErrorCode } from '@baton/core';
import { type ActorRecord, type Clock, Registry } from '@baton/core/adapter';
import { DependencyIndex } from './DependencyIndex.ts';
import { positionOf } from './evaluation/ReadPosition.ts';
import { resolveInstanceKey } from './evaluation/resolveInstanceKey.ts';
import { type QueryEngineOptions, resolveEngineOptions } from './QueryEngineOptions.ts';
import { QueryInstance, type Subscriber } from './QueryInstance.ts';
import type { QueryUpdate, ResumeAnswer } from './QueryUpdate.ts';
import { RerunScheduler } from './RerunScheduler.ts';
import { type RunEnvironment, runQuery } from './runQuery.ts';
import {
  checkResume,
  checkSubscribe,
  type QueryEngineStats,
  type QuerySubscription,
  type ResumeRequest,
  type SubscribeRequest,
} from './SubscribeRequest.ts';

/** One live query instance, as {@link QueryEngine.instances} lists it. */
export interface QueryInstanceInfo {
  readonly query: string;
  readonly args: unknown;
  readonly subscribers: number;
}

/** Stale results skipped in a row before the newest one is pushed anyway (a hot actor). */
const MAX_SKIPS = 3;

/**
 * The reactive query engine, transport-agnostic: hosts (a WebSocket server, API Gateway
 * handlers) subscribe on behalf of clients and forward the updates.
 *
 * Subscribers of the same (query, canonical args, identity scope) share one instance. Each run
 * records the actors it read with their versions; a committed change of one of them marks the
 * instance dirty once, and dirty instances re-run together, at most once every `batchMs`: at the
 * end of the turn after a quiet `batchMs`, else `batchMs` after the last batch. A run reads
 * committed state only, an equal result pushes nothing, and a result made stale by a change
 * during its run is skipped in favour of the next run.
 *
 * @example
 * const engine = new QueryEngine({ queries: [totalBalance], actors: [Account], store, feed: store });
 * const sub = engine.subscribe({ query: 'totalBalance', args: { accounts: ['alice'] } }, (update) =>
 *   console.log(update.kind === 'result' ? update.value : update.error.message),
 * );
 * await engine.flush(); // logs { total: 0 }
 * sub.unsubscribe();
 */
export class QueryEngine {
  readonly #options: ReturnType<typeof resolveEngineOptions>;
  readonly #clock: Clock;
  readonly #env: RunEnvironment;
  readonly #instances = new Map<string, QueryInstance>();
  readonly #leased = new Set<Subscriber>();
  readonly #scheduler: RerunScheduler;
  readonly #onClose = new Set<() => void>();
  readonly #unsubscribeFeed: () => void;
  readonly #stats = { runs: 0, pushes: 0, skipped: 0 };
  /** The refusals of {@link #checkRoom}: a run they failed is tried again as room frees. */
  readonly #roomRefusals = new WeakSet<BatonError>();
  #closed = false;

  constructor(options: QueryEngineOptions) {
    this.#options = resolveEngineOptions(options);
    this.#clock = this.#options.clock;
    const registry = new Registry(options.actors);
    this.#env = {
      registry,
      store: options.store,
      index: new DependencyIndex((instance) => instance.scope),
      checkRoom: (instance, actorId) => this.#checkRoom(instance, actorId),
    };
    this.#scheduler = new RerunScheduler(this.#options, (i) => this.#run(i));
    this.#unsubscribeFeed = options.feed.subscribe((record) => this.#onChange(record));
  }

  /**
   * Subscribes `listener` to a query. It is given the instance's current update (in a microtask)
   * if there is one, then every newer one. Throws, synchronously, NOT_FOUND for an unknown query
   * and INVALID_PAYLOAD for bad args.
   */
  subscribe(request: SubscribeRequest, listener: (update: QueryUpdate) => void): QuerySubscription {
    if (this.#closed) throw new BatonError(ErrorCode.UNAVAILABLE, 'the query engine is closed');
    checkSubscribe(request, listener);
    const { definition, args, key, scope } = resolveInstanceKey(
      this.#options.queries,
      this.#options.scope,
      request,
    );
    let instance = this.#instances.get(key);
    const created = !instance;
    if (!instance) {
      instance = new QueryInstance(key, definition, args, request.identity, scope);
      this.#instances.set(key, instance);
    }
    const { leaseMs } = request;
    const subscriber: Subscriber = {
      instance,
      listener,
      leaseMs,
      expiresAt: leaseMs === undefined ? Number.POSITIVE_INFINITY : this.#clock.now() + leaseMs,
      last: undefined,
      active: true,
    };
    instance.subscribers.add(subscriber);
    if (leaseMs !== undefined) this.#leased.add(subscriber);
    if (created) this.#scheduler.start(instance);
    else if (instance.current) queueMicrotask(() => this.#catchUp(subscriber));
    return {
      instance: key,
      current: () => (subscriber.active ? instance.current : undefined),
      renew: () => {
        if (subscriber.active && leaseMs !== undefined) {
          subscriber.expiresAt = this.#clock.now() + leaseMs;
        }
        return subscriber.active;
      },
      unsubscribe: () => this.#unsubscribe(subscriber),
      dependsOn: (actorId) => subscriber.active && instance.deps.has(actorId),
    };
  }

  /**
   * Answers a reconnecting client by the hash of the result it holds: `'unchanged'`, the full
   * newest result, or the query's error. Runs the query if no instance is live (a restarted
   * server). Subscribe as well to keep receiving updates. Patches come with the wire protocol.
   *
   * @example
   * const answer = await engine.resume({ query: 'totalBalance', args, lastVersion: 4, hash });
   * if (answer !== 'unchanged') render(answer);
   */
  async resume(request: ResumeRequest): Promise<ResumeAnswer> {
    checkResume(request);
    let onClose = () => {};
    let onUpdate = () => {};
    const settled = new Promise<void>((resolve, reject) => {
      onUpdate = resolve;
      onClose = () => reject(new BatonError(ErrorCode.UNAVAILABLE, 'the query engine closed'));
    });
    const subscription = this.subscribe({ ...request, leaseMs: undefined }, onUpdate);
    this.#onClose.add(onClose);
    try {
      if (!subscription.current()) await settled;
      const instance = this.#instances.get(subscription.instance)!;
      return instance.resume(request.lastVersion, request.hash)!;
    } finally {
      this.#onClose.delete(onClose);
      subscription.unsubscribe();
    }
  }

  /** Drops every leased subscription whose lease lapsed by `now`; returns how many. */
  collect(now: number = this.#clock.now()): number {
    let dropped = 0;
    for (const subscriber of this.#leased) {
      if (subscriber.expiresAt <= now) {
        this.#unsubscribe(subscriber);
        dropped++;
      }
    }
    return dropped;
  }

  /** Runs every pending re-run now, and waits until no run is pending or in progress. */
  flush(): Promise<void> {
    return this.#scheduler.flush();
  }

  /** Counters for tests and metrics. */
  stats(): QueryEngineStats {
    let subscriptions = 0;
    for (const instance of this.#instances.values()) subscriptions += instance.subscribers.size;
    const { index } = this.#env;
    return {
      instances: this.#instances.size,
      subscriptions,
      dependencies: index.size,
      ...this.#stats,
    };
  }

  /** The live instances, for tools such as `baton dev`'s inspector: each query with its subscribers. */
  instances(): QueryInstanceInfo[] {
    return [...this.#instances.values()].map((instance) => ({
      query: instance.definition.name,
      args: instance.args,
      subscribers: instance.subscribers.size,
    }));
  }

  /** Stops listening to the feed and drops every instance; later subscribes throw UNAVAILABLE. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#unsubscribeFeed();
    this.#scheduler.stop();
    for (const instance of [...this.#instances.values()]) this.#drop(instance);
    for (const onClose of [...this.#onClose]) onClose();
  }

  #onChange(record: ActorRecord): void {
    const dependents = this.#env.index.dependents(record.id);
    if (!dependents) return;
    for (const instance of dependents) {
      if (instance.onChange(record.id, positionOf(record))) this.#scheduler.mark(instance);
    }
  }

  async #run(instance: QueryInstance): Promise<void> {
    clearTimeout(instance.retryTimer);
    this.#stats.runs++;
    const outcome = await runQuery(instance, this.#env);
    const { dropped, dirty } = instance.endRun();
    for (const actorId of dropped) this.#env.index.remove(actorId, instance);
    if (instance.closed) return this.#unindex(instance);
    if (!outcome.ok) {
      const level = outcome.unexpected ? 'warn' : 'debug';
      const { name } = instance.definition;
      // Where an unexpected error came from: the query's bug, most of the time.
      const { cause } = outcome.error;
      const stack = outcome.unexpected && cause instanceof Error ? cause.stack : undefined;
      this.#options.logger[level]('query failed', {
        query: name,
        error: outcome.error.message,
        ...(stack ? { stack } : {}),
      });
    }
    if (dirty && instance.skips < MAX_SKIPS) {
      instance.skips++;
      this.#stats.skipped++;
      return this.#scheduler.mark(instance);
    }
    instance.skips = 0;
    const update = instance.settle(outcome);
    if (update) this.#stats.pushes += instance.fanOut(update, this.#onListenerError);
    // A run refused room for its reads is no fault of the query: it is tried again, with the
    // retry's backoff, and its subscribers get its result once other instances free room.
    const retryable =
      !outcome.ok &&
      !outcome.unexpected &&
      (!outcome.error.terminal || this.#roomRefusals.has(outcome.error));
    if (dirty) this.#scheduler.mark(instance);
    else if (retryable) this.#scheduler.retry(instance);
    else instance.retryDelayMs = 0;
  }

  /**
   * Refuses a new dependency of `instance` past `maxDependencies`, or past
   * `maxDependenciesPerScope` for its scope: the engine's memory is bounded, and one scope (all
   * anonymous subscribers are one) cannot take it all. A dependency it holds already is no new one,
   * and the ones its run leaves (read last time, not yet this time) are room it frees: a run whose
   * reads move to other actors keeps its share, at the cost of holding both for the run's time.
   */
  #checkRoom(instance: QueryInstance, actorId: string): void {
    const { index } = this.#env;
    if (index.has(actorId, instance)) return;
    const { maxDependencies, maxDependenciesPerScope } = this.#options;
    const { leaving } = instance;
    const [held, most, whose] =
      index.entries - leaving >= maxDependencies
        ? [index.entries - leaving, maxDependencies, 'all live queries here']
        : [
            index.entriesOf(instance.scope) - leaving,
            maxDependenciesPerScope,
            `this caller's live queries`,
          ];
    if (held < most) return;
    const { name } = instance.definition;
    // Its details name no `limit`: a client takes that for a subscribe refused, held by none,
    // and subscribes again; this subscription is held, and gets the result once room frees.
    const refused = new BatonError(
      ErrorCode.LIMIT_EXCEEDED,
      `query "${name}" cannot read ${actorId}: ${whose} hold ${held} actors' reads, the most this server keeps (${most}); it runs again as room frees. Unsubscribe from views no longer shown, or read fewer actors per query`,
      { details: { query: name, held, most } },
    );
    this.#roomRefusals.add(refused);
    throw refused;
  }

  #catchUp(subscriber: Subscriber): void {
    const { instance } = subscriber;
    const { current } = instance;
    if (current && instance.deliver(subscriber, current, this.#onListenerError)) {
      this.#stats.pushes++;
    }
  }

  #unsubscribe(subscriber: Subscriber): void {
    if (!subscriber.active) return;
    subscriber.active = false;
    this.#leased.delete(subscriber);
    const { instance } = subscriber;
    instance.subscribers.delete(subscriber);
    if (instance.subscribers.size === 0) this.#drop(instance);
  }

  #drop(instance: QueryInstance): void {
    instance.closed = true;
    for (const subscriber of instance.subscribers) {
      subscriber.active = false;
      this.#leased.delete(subscriber);
    }
    instance.subscribers.clear();
    this.#scheduler.forget(instance);
    this.#instances.delete(instance.key);
    this.#unindex(instance);
  }

  #unindex(instance: QueryInstance): void {
    for (const actorId of instance.actorIds()) this.#env.index.remove(actorId, instance);
  }

  readonly #onListenerError = (error: unknown, instance: QueryInstance): void => {
    const { name } = instance.definition;
    this.#options.logger.error('a query listener threw', { query: name, error: String(error) });
  };
}
