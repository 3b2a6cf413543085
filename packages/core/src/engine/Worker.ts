import {
  decodeEnvelope,
  effectOf,
  isNewerEnvelope,
  NEWER_ENVELOPE_LOG,
} from '../adapter/envelope.ts';
import type { ReceivedMessage, TurnQueue, TurnStore } from '../adapter/ports.ts';
import { type BatonError, toBatonError } from '../errors.ts';
import { MAX_VISIBILITY_TIMEOUT_MS } from '../limits.ts';
import type { BatchLimits } from './batchLimits.ts';
import { checkRedrivePolicy } from './checkRedrivePolicy.ts';
import { createEngine, type Engine, type EngineOptions, type TurnEngine } from './createEngine.ts';
import { drainOutbox } from './drainOutbox.ts';
import { NO_COUNTS } from './handling.ts';
import { notify } from './hooks.ts';
import type { Inbound } from './Inbound.ts';
import { runEffects } from './runEffects.ts';
import { runTurn, type TurnCounts, type TurnResult } from './runTurn.ts';
import { withinReach } from './timers.ts';
import { WarmCache } from './WarmCache.ts';

/** Actors whose drained record version a worker remembers; the least recent are forgotten. */
const DRAINED_ACTORS = 10_000;

/** A record version whose sends a worker drained: which life, which version, when. */
interface Drained {
  readonly ver: number;
  readonly life: string | undefined;
  readonly at: number;
}

/**
 * The warning a worker logs when a turn committed but its sends could not go out: its messages
 * are acked all the same, and the actor's next turn, or the sweeper, sends them.
 */
export const UNSENT_LOG = 'sends committed, not sent yet: the next turn or a sweep sends them';

/**
 * What a worker logs (at info, with `actor` and `receives`) when an actor's messages come again:
 * after a failure logged as such, or after a worker died or timed out on them, which names no
 * actor (Lambda's `Task timed out`), and records no failure.
 */
export const REDELIVERED_LOG = 'messages delivered again';

const TIMERS_NOT_ARMED = 'timers committed but not armed: the sweeper will fire them';

/** The outcome of processing one received batch. */
export interface ProcessResult {
  /** Processed and drained: delete them from the queue. */
  readonly done: ReceivedMessage[];
  /** Not processed: they must come back, each after the earlier messages of its group. */
  readonly failed: ReceivedMessage[];
  /** When to retry, by receipt, for failed messages whose RetryableError said so. */
  readonly retryAfterMs: ReadonlyMap<string, number>;
}

/**
 * Runs turns for inbox messages a host pushes to it: `process` serves push-style hosts
 * (Lambda's SQS event source acks what it returns as done). {@link Worker} adds `poll` for
 * pull-style hosts; a Lambda's handler needs only this, and so bundles no more.
 *
 * @example
 * const worker = new PushWorker({ actors: [Account], store, queue });
 * const { failed } = await worker.process(received);
 */
export class PushWorker {
  readonly engine: TurnEngine;
  /**
   * Per actor (most recent last): the record version, and its life, whose sends this worker
   * drained itself, and when. The life matters: a new life of the actor (after `ctx.halt()`)
   * counts its versions from 0 again, and a turn of this worker that committed nothing may
   * have read the old life's record from its cache. Trusted for the mark retention only.
   */
  readonly #drained = new WarmCache<Drained>(DRAINED_ACTORS);

  constructor(options: EngineOptions<TurnStore, TurnQueue> | TurnEngine) {
    this.engine = 'registry' in options ? options : createEngine(options);
  }

  /**
   * Runs one turn per actor (actors in parallel, each actor's messages in order) and drains;
   * `deadline`, when the host stops the batch (see {@link BatchLimits}).
   */
  async process(received: readonly ReceivedMessage[], deadline?: number): Promise<ProcessResult> {
    const maxReceives = (await checkRedrivePolicy(this.engine))?.maxReceives;
    return this.processWith(received, { maxReceives, deadline });
  }

  /**
   * `process` with the queue's redrive setting, asked per batch (the queue caches it): one
   * changed while this worker runs decides when a failing message is ended (see attempts.ts).
   */
  protected async processWith(
    received: readonly ReceivedMessage[],
    limits: BatchLimits,
  ): Promise<ProcessResult> {
    // Asked per batch (the queue caches it): a queue replaced while this worker runs is seen.
    const { queue } = this.engine;
    const inbox = queue.identity ? await queue.identity() : undefined;
    const groups = new Map<string, ReceivedMessage[]>();
    for (const message of received) {
      const group = groups.get(message.group) ?? [];
      group.push(message);
      groups.set(message.group, group);
    }
    const done: ReceivedMessage[] = [];
    const failed: ReceivedMessage[] = [];
    const retryAfterMs = new Map<string, number>();
    await Promise.all(
      [...groups].map(async ([actorId, messages]) => {
        const started = this.engine.onTurn ? performance.now() : 0;
        const receives = messages[0]!.receiveCount;
        if (receives > 1) this.engine.logger.info(REDELIVERED_LOG, { actor: actorId, receives });
        // An effect's group is not a turn: only actors' turns are reported.
        if (this.engine.onTurnStart && effectOf(actorId) === undefined) {
          this.#reportStart(actorId, messages);
        }
        try {
          const result = await this.#processGroup(actorId, messages, inbox, limits);
          done.push(...messages.slice(0, result.done));
          const stopped = messages.slice(result.done);
          failed.push(...stopped);
          const after = result.retry?.retryAfterMs;
          if (after !== undefined) for (const m of stopped) retryAfterMs.set(m.receipt, after);
          if (result.counts) {
            this.#report(actorId, messages.length, started, stopped.length, result.counts);
          }
        } catch (error) {
          // An effect's group is not a turn: only actors' turns are reported.
          if (effectOf(actorId) === undefined) {
            this.#report(actorId, messages.length, started, messages.length, undefined);
          }
          this.engine.logger.error('turn failed; its messages will be redelivered', {
            actor: actorId,
            error: toBatonError(error).message,
          });
          failed.push(...messages);
        }
      }),
    );
    return { done, failed, retryAfterMs };
  }

  /** Tells the engine's `onTurnStart` listener of the turn about to run. */
  #reportStart(actorId: string, messages: readonly ReceivedMessage[]): void {
    const decoded = messages.map((message) => {
      const envelope = decodeEnvelope(message.body);
      return envelope && { id: envelope.id, name: envelope.name, from: envelope.from };
    });
    const { logger, onTurnStart } = this.engine;
    notify(logger, 'onTurnStart', onTurnStart, { actorId, messages: decoded }, actorId);
  }

  /** Tells the engine's `onTurn` listener what the turn did (`counts` absent: it failed). */
  #report(
    actorId: string,
    batchSize: number,
    started: number,
    retried: number,
    counts: TurnCounts | undefined,
  ): void {
    const { onTurn, logger } = this.engine;
    if (!onTurn) return;
    notify(
      logger,
      'onTurn',
      onTurn,
      {
        actorId,
        actorType: actorId.slice(0, Math.max(0, actorId.indexOf('/'))) || actorId,
        durationMs: performance.now() - started,
        batchSize,
        ...(counts ?? NO_COUNTS),
        retried,
        failed: counts === undefined,
      },
      actorId,
    );
  }

  /** The version of `actorId`'s record whose sends this worker drained, forgetting it. */
  #takeDrained(actorId: string, now: number): Drained | undefined {
    const drained = this.#drained.take(actorId);
    if (!drained || now - drained.at >= this.engine.markRetentionMs) {
      return undefined;
    }
    return drained;
  }

  /**
   * Remembers the record version whose sends the turn drained, as of `at`, read before the turn
   * began: the version is trusted for the mark retention from then, never longer than from the drain.
   */
  #rememberDrained(actorId: string, { ver, life }: TurnResult, at: number): void {
    this.#drained.put(actorId, { ver, life, at });
  }

  /**
   * What follows a turn's commit: its sends go out, then the timers it scheduled that are due
   * within the timer queue's reach are armed (the sweeper arms later ones as they come within
   * it). Neither fails the batch, whose messages are applied. Failed, they would come back only
   * to fail again at the drain before their turn while the inbox refuses the sends, and end in
   * its dead-letter queue, applied. Sends that did not go out stay in the record: the actor's
   * next turn sends them before it commits, or the sweeper does. Timers not armed, the sweeper
   * fires once overdue.
   */
  async #afterCommit(actorId: string, result: TurnResult, now: number): Promise<void> {
    const { store, queue, timers, logger, clock } = this.engine;
    const warn = (message: string, error: unknown, timers?: number) =>
      logger.warn(message, { actor: actorId, timers, error: toBatonError(error).message });
    try {
      if (result.undrained) await drainOutbox(store, queue, result.undrained);
      this.#rememberDrained(actorId, result, now);
    } catch (error) {
      warn(UNSENT_LOG, error);
    }
    if (!timers) return;
    const soon = withinReach(result.timers, timers, clock.now());
    if (soon.length > 0) {
      await timers.arm(soon).catch((error: unknown) => warn(TIMERS_NOT_ARMED, error, soon.length));
    }
  }

  /**
   * Refuses a queue that would dead-letter a message itself before the engine could: its
   * `maxReceives` must be above `maxAttempts`, or a message failing in its handler (and the
   * messages behind it in its group) would leave for the queue's dead-letter queue instead of
   * being ended in the actor's turn and kept to redrive. `process` runs it before each batch
   * (the queue caches its setting); call it at start to fail early.
   *
   * @example
   * await worker.check(); // throws INVALID_ARGUMENT for maxReceives 3 with maxAttempts 3
   */
  async check(): Promise<void> {
    await checkRedrivePolicy(this.engine);
  }

  async #processGroup(
    actorId: string,
    messages: readonly ReceivedMessage[],
    inbox: string | undefined,
    limits: BatchLimits,
  ): Promise<{ done: number; retry?: BatonError; counts?: TurnCounts }> {
    if (effectOf(actorId) !== undefined) return runEffects(this.engine, messages);
    const batch: Inbound[] = [];
    for (const message of messages) {
      const envelope = decodeEnvelope(message.body);
      if (!envelope || envelope.to !== actorId) {
        // Undecodable: stop here; it is redelivered until the queue dead-letters it.
        this.engine.logger.error('inbox message is not a Baton envelope for this actor', {
          actor: actorId,
          dedupeId: message.dedupeId,
        });
        break;
      }
      if (isNewerEnvelope(envelope)) {
        this.engine.logger.error(NEWER_ENVELOPE_LOG, {
          actor: actorId,
          messageId: envelope.id,
          format: envelope.format,
        });
        break;
      }
      const { seq: queueSeq, receiveCount } = message;
      batch.push(
        inbox === undefined
          ? { envelope, queueSeq, receiveCount }
          : { envelope, queueSeq, receiveCount, queue: inbox },
      );
    }
    // One read of the clock: the turn starts after it and drains before the next.
    const now = this.engine.clock.now();
    const drainedAt = this.#takeDrained(actorId, now);
    const result = await runTurn(this.engine, actorId, batch, { ...limits, drainedAt });
    await this.#afterCommit(actorId, result, now);
    return result;
  }
}

/**
 * Runs turns for inbox messages. `process` serves push-style hosts (Lambda's SQS event source
 * acks what it returns as done); `poll` serves pull-style hosts (receive, process, ack).
 *
 * @example
 * const worker = new Worker({ actors: [Account], store, queue });
 * while (running) await worker.poll();
 */
export class Worker extends PushWorker {
  /** Its queue is a whole one: it receives, acks and releases. */
  declare readonly engine: Engine;

  constructor(options: EngineOptions | Engine) {
    super(options);
  }

  /** Receives one batch, processes it, acks what is done and releases what must be retried. */
  async poll(): Promise<number> {
    // Before receiving anything: a queue that would take failing messages first is refused.
    const policy = await checkRedrivePolicy(this.engine);
    const { queue, batchSize, visibilityTimeoutMs, clock } = this.engine;
    const receivedAt = clock.now(); // before the receive: what is left of its 12 hours is no more
    const received = await queue.receive({ max: batchSize, visibilityTimeoutMs });
    if (received.length === 0) return 0;
    const result = await this.processWith(received, { maxReceives: policy?.maxReceives });
    if (result.done.length > 0) await queue.ack(result.done.map((m) => m.receipt));
    for (const [delay, failed] of retryDelays(result, releaseReach(receivedAt, clock.now()))) {
      await queue.release(
        failed.map((m) => m.receipt),
        delay,
      );
    }
    return received.length;
  }
}

/**
 * A processed batch's failed messages by the delay after which each should come back: the one
 * its turn asked for (a `RetryableError`'s `retryAfterMs`, or a deploy's wait), else a backoff
 * by its delivery count; at most `reachMs` (see {@link releaseReach}). A later message of a
 * failed one's group may come back first: the FIFO queue still hands it out only after the
 * failed one.
 */
export function retryDelays(
  result: ProcessResult,
  reachMs = Infinity,
): Map<number, ReceivedMessage[]> {
  const byDelay = new Map<number, ReceivedMessage[]>();
  for (const m of result.failed) {
    const asked = result.retryAfterMs.get(m.receipt) ?? backoff(m.receiveCount);
    const delay = Math.min(asked, reachMs);
    byDelay.set(delay, [...(byDelay.get(delay) ?? []), m]);
  }
  return byDelay;
}

/** Retry delay by delivery count: 1 s, 2 s, 4 s … up to 60 s. */
function backoff(receiveCount: number): number {
  return Math.min(60_000, 1000 * 2 ** Math.max(0, receiveCount - 1));
}

/** Time kept back from SQS's 12 hours: the receive's own trip, a Lambda's hand-off. */
const RELEASE_MARGIN_MS = 60_000;

/**
 * The longest release SQS takes, at `now`, for messages received at `receivedAt` (or later): a
 * message stays hidden at most `MAX_VISIBILITY_TIMEOUT_MS` (12 hours) from the receive that
 * handed it out, and SQS refuses a longer release (the message would then come back after the
 * visibility timeout instead). In whole seconds, SQS's unit, less a minute; 0 once none is left.
 *
 * @example
 * retryDelays(result, releaseReach(receivedAt, clock.now())); // a retry asked in 13 h: 12 h less
 */
export function releaseReach(receivedAt: number, now: number): number {
  const left = MAX_VISIBILITY_TIMEOUT_MS - RELEASE_MARGIN_MS - (now - receivedAt);
  return Math.max(0, Math.floor(left / 1000) * 1000);
}
