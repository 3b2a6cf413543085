import type { AnyActorDefinition } from '../actor.ts';
import {
  type Clock,
  type Queue,
  type Store,
  systemClock,
  type TimerQueue,
  type TurnQueue,
  type TurnStore,
} from '../adapter/ports.ts';
import type { AnyEffectDefinition } from '../effect.ts';
import { checkCount, refuseOptions } from '../errors.ts';
import { MAX_RECEIVE_MESSAGES, MAX_VISIBILITY_TIMEOUT_MS } from '../limits.ts';
import type { Logger } from '../logger.ts';
import { jsonLogger } from '../logger.ts';
import { Registry } from '../registry.ts';
import { DAY, days } from '../shared/days.ts';
import { lifeId, type Random } from '../shared/random.ts';
import type { CommitListener, DeadLetterListener, TurnStartListener } from './hooks.ts';
import { PAGE_KEYS_KEPT, PageKeyCache } from './outcomePages.ts';
import { RECORD_PEERS } from './overflow.ts';
import { DEFAULT_CACHE_BYTES, RecordCache } from './RecordCache.ts';
import type { OpenTelemetryApi } from './spans.ts';
import type { TurnListener } from './turnMetrics.ts';
import { WarmCache } from './WarmCache.ts';

/**
 * The engine's `maxAttempts` unless given: the inbox queue's own `maxReceives` must be above it
 * (a worker checks).
 */
export const DEFAULT_MAX_ATTEMPTS = 3;

/**
 * Options shared by the worker, the sweeper and the client, on a whole store and queue; a
 * worker that is handed its messages (`PushWorker`) takes `EngineOptions<TurnStore, TurnQueue>`.
 */
export interface EngineOptions<S extends TurnStore = Store, Q extends TurnQueue = Queue> {
  /** The app's actor types. */
  readonly actors: readonly AnyActorDefinition[];
  /** The app's effects (`effect()`, `webhook()`): what `ctx.effect` may ask for, run by workers. */
  readonly effects?: readonly AnyEffectDefinition[];
  readonly store: S;
  readonly queue: Q;
  /**
   * Arms timers as turns schedule them (AWS: `SqsTimerQueue`). Without one, the sweeper fires
   * them once due, as the embedded runtime does.
   */
  readonly timers?: TimerQueue;
  /**
   * Your `@opentelemetry/api` module, to record a span per message handling (a child of the
   * span that sent the message) and propagate it: `import * as openTelemetry from
   * '@opentelemetry/api'`. Without it, traces are still propagated, with span ids derived from
   * message ids.
   */
  readonly openTelemetry?: OpenTelemetryApi;
  /** @default the system clock */
  readonly clock?: Clock;
  /** @default JSON lines on stdout at level info */
  readonly logger?: Logger;
  /**
   * Randomness for `ctx.random()` and `ctx.uuid()`, and for the ids of actors' lives when
   * given (a simulation's seeded one). For tests only: two processes, or two cold starts, given
   * the same seed draw the same life ids, so a new life of an actor would repeat an earlier
   * one's message ids and effect keys. Never pass a seeded source in production.
   * @default Math.random, and the platform's cryptographic source for life ids
   */
  readonly random?: Random;
  /**
   * Put before every effect's idempotency key (`<namespace>:<actor id>:<life>.<seq>`), so that
   * two apps or stages (staging, production) calling one outside service never send the same
   * key. Set it before the first deploy: changed later, an effect retried after the change
   * carries the new key (docs/deploys.md). @example 'shop-prod'
   */
  readonly effectKeyNamespace?: string;
  /** Inbox messages taken per receive: 1 to `MAX_RECEIVE_MESSAGES` (SQS's 10). @default 10 */
  readonly batchSize?: number;
  /**
   * How long a received message stays hidden from other workers: at most
   * `MAX_VISIBILITY_TIMEOUT_MS` (SQS's 12 hours). @default 30 s
   */
  readonly visibilityTimeoutMs?: number;
  /** Actor records kept warm in memory; 0 disables the cache. @default 1000 */
  readonly cacheSize?: number;
  /**
   * The JSON bytes of the records kept warm: the least recently used go first past it (or past
   * `cacheSize`), the one just kept staying whatever its size; 0 disables the cache. A record
   * takes some times its JSON size in memory: size this to the worker's memory. @default 64 MiB
   */
  readonly cacheBytes?: number;
  /**
   * Suspended workflow runs kept in memory, each continued by the instance's next turn on this
   * worker instead of replayed from its journal (any other turn replays); 0 disables it, which
   * in tests replays every turn and so finds a run that is not deterministic. @default 200
   */
  readonly workflowCacheSize?: number;
  /**
   * How long an ingress idempotency key is remembered (I7). At most twice `markRetentionMs`, or
   * the engine refuses to start: a halted actor's record is deleted twice the mark retention
   * after its last message, and a copy of a client's message its life applied, coming later but
   * within this retention, would be applied again by the next life. Lower it at any time;
   * raise it only as docs/deploys.md says. Give every door that sends to this engine the same
   * value (`Client`, `httpIngress`, `ingressHandler`, `websocketHandler`, `createLocalServer`'s
   * `idempotencyRetentionMs`): a key is bound for twice the door's. @default 14 days
   */
  readonly idempotencyRetentionMs?: number;
  /**
   * How long a receiver keeps an idle sender's mark. A sender forgets an idle channel after half
   * of it, so keep it over twice the queue's message retention. Lower it at any time; do not raise
   * it on a running app (docs/deploys.md). @default 28 days
   */
  readonly markRetentionMs?: number;
  /**
   * Starts with `idempotencyRetentionMs` over twice `markRetentionMs`, which the engine otherwise
   * refuses: I7 then does not hold across an actor's lives. Only for a test or a simulation that
   * shortens the mark retention alone, to see marks expire in a short run, and sends no client's
   * copy that late. @default false
   */
  readonly allowShortMarkRetention?: boolean;
  /**
   * Failures of a message's handler before the engine ends it as DEAD_LETTERED (kept for
   * redrive). Each message counts its own (the actor's record keeps the count), not the queue's
   * receives, which also count those it spent waiting behind a failing message. A message is
   * ended sooner at its last receive, when the queue's own maxReceives (the backstop for
   * failures outside handlers: crashes, timeouts) is known: a worker refuses a queue whose
   * maxReceives is not above maxAttempts. A deploy's failure (the message, or the record it
   * meets, is known only to newer code) gets more: every receive the queue allows but its last
   * (see docs/deploys.md). @default 3
   */
  readonly maxAttempts?: number;
  /**
   * Sender marks and channels (each) an actor's record lists before the least recently used
   * move out into items of their own, read back only when that peer shows up again. More
   * makes records larger (every commit writes the whole record); fewer makes more reads.
   * @default 64 ({@link RECORD_PEERS})
   */
  readonly recordPeers?: number;
  /**
   * Told what each turn a worker runs did (duration, batch size, messages applied, rejected,
   * dead-lettered, parked, retried, version conflicts): `turnMetrics(metrics)` records them as
   * Powertools Metrics. Called on the hot path: keep it cheap.
   */
  readonly onTurn?: TurnListener;
  /** Told before each turn a worker runs: its actor and messages (see `hooks.ts`). */
  readonly onTurnStart?: TurnStartListener;
  /** Told of each commit of a turn once applied, before its drain and ack. */
  readonly onCommit?: CommitListener;
  /** Told of each message a turn ended as dead-lettered, once committed. */
  readonly onDeadLetter?: DeadLetterListener;
}

/** The resolved options: what every engine function takes. */
export interface Engine<S extends TurnStore = Store, Q extends TurnQueue = Queue> {
  readonly registry: Registry;
  readonly store: S;
  readonly queue: Q;
  readonly timers: TimerQueue | undefined;
  readonly openTelemetry: OpenTelemetryApi | undefined;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly random: Random;
  /** Draws the id of an actor's new life (`ActorRecord.life`). */
  readonly newLife: () => string;
  readonly effectKeyNamespace: string | undefined;
  readonly cache: RecordCache;
  /** Suspended workflow runs, by actor id. */
  readonly warm: WarmCache;
  /** Keys of the actors' closed outcome pages. */
  readonly pageKeys: PageKeyCache;
  readonly batchSize: number;
  readonly visibilityTimeoutMs: number;
  readonly idempotencyRetentionMs: number;
  readonly markRetentionMs: number;
  readonly maxAttempts: number;
  readonly recordPeers: number;
  readonly onTurn: TurnListener | undefined;
  readonly onTurnStart: TurnStartListener | undefined;
  readonly onCommit: CommitListener | undefined;
  readonly onDeadLetter: DeadLetterListener | undefined;
}

/**
 * An engine on the turns' part of a store and queue: what a turn's functions take, so that a
 * worker that is handed its messages (`PushWorker`) runs on a {@link TurnStore} and a
 * {@link TurnQueue} alone.
 */
export type TurnEngine = Engine<TurnStore, TurnQueue>;

export function createEngine<S extends TurnStore, Q extends TurnQueue>(
  options: EngineOptions<S, Q>,
): Engine<S, Q> {
  const problems: string[] = [];
  const positive = (
    name: keyof EngineOptions,
    value: number | undefined,
    fallback: number,
    least = 0,
  ) => {
    const v = value ?? fallback;
    if (!Number.isFinite(v) || v < least)
      problems.push(`${name} must be a number ≥ ${least}, got ${v}`);
    return v;
  };
  const batchSize = options.batchSize ?? 10;
  // SQS refuses a larger receive: every receive of a polling worker would fail.
  const most = " (SQS's most messages a receive)";
  checkCount(problems, 'batchSize', batchSize, MAX_RECEIVE_MESSAGES, most);
  const visibilityTimeoutMs = positive('visibilityTimeoutMs', options.visibilityTimeoutMs, 30_000);
  // SQS refuses a longer one: every receive of a polling worker would fail.
  if (visibilityTimeoutMs > MAX_VISIBILITY_TIMEOUT_MS) {
    problems.push(
      `visibilityTimeoutMs must be at most ${MAX_VISIBILITY_TIMEOUT_MS} (SQS's longest visibility timeout, 12 hours), got ${visibilityTimeoutMs}`,
    );
  }
  const engine: Engine<S, Q> = {
    registry: new Registry(options.actors, options.effects),
    store: options.store,
    queue: options.queue,
    timers: options.timers,
    openTelemetry: options.openTelemetry,
    clock: options.clock ?? systemClock,
    logger: options.logger ?? jsonLogger(),
    random: options.random ?? Math.random,
    newLife: options.random ? () => lifeId(options.random) : () => lifeId(),
    effectKeyNamespace: options.effectKeyNamespace,
    onTurn: options.onTurn,
    onTurnStart: options.onTurnStart,
    onCommit: options.onCommit,
    onDeadLetter: options.onDeadLetter,
    cache: new RecordCache(
      positive('cacheSize', options.cacheSize, 1000),
      positive('cacheBytes', options.cacheBytes, DEFAULT_CACHE_BYTES),
    ),
    warm: new WarmCache(positive('workflowCacheSize', options.workflowCacheSize, 200)),
    pageKeys: new PageKeyCache(PAGE_KEYS_KEPT),
    batchSize,
    visibilityTimeoutMs,
    idempotencyRetentionMs: positive(
      'idempotencyRetentionMs',
      options.idempotencyRetentionMs,
      14 * DAY,
    ),
    markRetentionMs: positive('markRetentionMs', options.markRetentionMs, 28 * DAY),
    maxAttempts: positive('maxAttempts', options.maxAttempts, DEFAULT_MAX_ATTEMPTS, 1),
    recordPeers: positive('recordPeers', options.recordPeers, RECORD_PEERS, 1),
  };
  if (!options.store || !options.queue) problems.push('store and queue are required');
  const namespace = options.effectKeyNamespace;
  if (namespace !== undefined && (typeof namespace !== 'string' || namespace === '')) {
    problems.push(
      `effectKeyNamespace must be a non-empty string, got ${JSON.stringify(namespace)}`,
    );
  }
  if (options.allowShortMarkRetention !== true) checkRetentions(engine, problems);
  refuseOptions('engine', problems);
  return engine;
}

/**
 * Refuses an idempotency retention over twice the mark retention. An actor's record tells which
 * of its outcome pages to look a copy up in, and it is deleted twice the mark retention after
 * the last message of a life that halted or never changed: a client's copy of a message coming
 * after that, within the idempotency retention, may be applied again by the next life.
 */
function checkRetentions(engine: TurnEngine, problems: string[]): void {
  const { idempotencyRetentionMs: outcomeMs, markRetentionMs: markMs } = engine;
  // A retention refused as it is (negative, not finite) is reported alone.
  if (!(outcomeMs > 2 * markMs && markMs >= 0 && outcomeMs < Infinity)) return;
  problems.push(
    `idempotencyRetentionMs (${outcomeMs} ms, ${days(outcomeMs)} days) is over twice markRetentionMs (${markMs} ms, ${days(markMs)} days): a client's copy of a message may outlive its actor's record and be applied again by a new life; keep it at most twice that`,
  );
}
