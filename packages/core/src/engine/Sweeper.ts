import { invalidArgument } from '../adapter/invalidArgument.ts';
import { toBatonError } from '../errors.ts';
import { createEngine, type Engine, type EngineOptions } from './createEngine.ts';
import { sweepOutboxOf } from './drainOutbox.ts';
import { armComingTimers, fireDueTimers } from './timers.ts';

/** The message the sweeper logs (as an error) per outbox item older than the alarm age. */
export const STALE_OUTBOX_LOG = 'outbox item older than the alarm age: its drain keeps failing';

/**
 * The line a scheduled sweeper logs (info) after each sweep, with the {@link SweepResult} as
 * fields: an alarm on its `lagMs`, and on its absence, catches a sweeper that runs late or not
 * at all.
 */
export const SWEEP_LOG = 'sweep done';

/**
 * Actors whose outbox a sweep drains at once by default: on AWS's latencies about 150 actors a
 * second, half of what a FIFO inbox takes in sends without high-throughput mode.
 */
export const SWEEP_CONCURRENCY = 4;

/** The warning a sweep logs when its time budget ran out before it drained every outbox listed. */
export const SWEEP_BEHIND_LOG = 'sweep left outboxes to the next sweep: its time budget ran out';

export interface SweepResult {
  /** Actors whose outbox was drained. */
  readonly drained: number;
  /** Envelopes sent. */
  readonly sent: number;
  /** Actors whose outbox could not be drained this time. */
  readonly failed: number;
  /** Due timers fired into the inbox. */
  readonly timersFired: number;
  /** Timers armed as they came within the timer queue's reach (`TimerQueue.reachMs`). */
  readonly timersArmed: number;
  /**
   * Actors with sends to drain that this sweep did not reach before its time budget ran out: the
   * next sweep drains them first. Above 0 sweep after sweep, the sweeper is falling behind.
   */
  readonly left: number;
  /**
   * How long the oldest send this sweep drained had waited since its commit (0 when there was
   * none): the sweeper's lag. Past the queue's dedupe window (SQS: 5 minutes), the copies a
   * sweep sends are not dropped by the queue: receivers' marks and effects' done-marks skip them.
   */
  readonly lagMs: number;
}

export interface SweeperOptions {
  /** Only outbox items older than this are swept, leaving fresh ones to their worker. @default 60 s */
  readonly minAgeMs?: number;
  /** Outbox items older than this raise an error log: something keeps failing. @default 1 day */
  readonly alarmAgeMs?: number;
  /**
   * How long past due a timer must be before the sweeper fires it. With a `TimerQueue` armed
   * timers fire on their own, and the sweeper only catches those whose arming was lost.
   * @default 60 s with a TimerQueue, 0 without
   */
  readonly timerGraceMs?: number;
  /**
   * With a `TimerQueue` that has a reach (`reachMs`), each sweep arms the timers due in this
   * window before the end of the reach: make it at least twice the time between sweeps, so
   * each timer is armed by one sweep or two, and a missed sweep loses nothing. @default 2 min
   */
  readonly armWindowMs?: number;
  /**
   * Actors whose outbox one sweep drains at once ({@link SWEEP_CONCURRENCY} unless given). Most
   * of a sweep's work is retiring the sends that idle actors' records still hold: four calls
   * each, one of them a send to the inbox, which shares its queue's calls per second with the
   * workers' drains and the clients' sends (see docs/scale.md, "The sweeper").
   */
  readonly concurrency?: number;
  /**
   * How long a sweep may spend — firing and arming timers first, then draining outboxes, oldest
   * first — before it leaves the rest to the next sweep ({@link SweepResult.left}). Keep it under
   * the time between sweeps, so that they do not overlap. @default no limit
   */
  readonly budgetMs?: number;
}

/** What one sweep is given, over the {@link SweeperOptions}. */
export interface SweepOptions {
  /** {@link SweeperOptions.budgetMs} for this sweep (e.g. what is left of a Lambda's time). */
  readonly budgetMs?: number;
}

/**
 * Drains outboxes that no worker will revisit — e.g. after a crash whose inbox message went to
 * the dead-letter queue — fires due timers that no one armed, and arms the timers that come
 * within the timer queue's reach (those due later than a turn could arm). It also retires the
 * sends an idle actor's record still holds: drained by its last turn, they stay until its next
 * commit, and the sweeper sends them again (the queue drops the copies within its dedupe
 * window, the receivers' marks after it) before it writes the record without them. Run it
 * periodically (a schedule on AWS, a timer locally).
 *
 * @example
 * const sweeper = new Sweeper({ actors, store, queue });
 * setInterval(() => sweeper.sweep(), 60_000);
 */
export class Sweeper {
  readonly engine: Engine;
  readonly #minAgeMs: number;
  readonly #alarmAgeMs: number;
  readonly #timerGraceMs: number;
  readonly #armWindowMs: number;
  readonly #concurrency: number;
  readonly #budgetMs: number;

  constructor(engine: EngineOptions | Engine, options: SweeperOptions = {}) {
    this.engine = 'registry' in engine ? engine : createEngine(engine);
    this.#minAgeMs = options.minAgeMs ?? 60_000;
    this.#alarmAgeMs = options.alarmAgeMs ?? 24 * 60 * 60 * 1000;
    this.#timerGraceMs = options.timerGraceMs ?? (this.engine.timers ? 60_000 : 0);
    this.#armWindowMs = options.armWindowMs ?? 2 * 60_000;
    this.#concurrency = options.concurrency ?? SWEEP_CONCURRENCY;
    this.#budgetMs = checkedBudget(options.budgetMs ?? Number.POSITIVE_INFINITY);
    if (!Number.isInteger(this.#concurrency) || this.#concurrency < 1) {
      throw invalidArgument(
        `sweeper concurrency must be a whole number ≥ 1, got ${this.#concurrency}`,
        { option: 'concurrency', value: this.#concurrency },
      );
    }
  }

  async sweep(options: SweepOptions = {}): Promise<SweepResult> {
    const { store, queue, clock, logger } = this.engine;
    const now = clock.now();
    const budgetMs = checkedBudget(options.budgetMs ?? this.#budgetMs);
    const deadline = now + budgetMs;
    // Timers first: a fire that waits for the outboxes is late.
    let timersFired = 0;
    try {
      timersFired = await fireDueTimers(this.engine, now - this.#timerGraceMs, deadline);
    } catch (error) {
      logger.warn('sweep could not fire due timers', { error: toBatonError(error).message });
    }
    let timersArmed = 0;
    const { timers } = this.engine;
    try {
      if (timers) {
        timersArmed = await armComingTimers(this.engine, timers, now, this.#armWindowMs, deadline);
      }
    } catch (error) {
      // The next sweep's window overlaps this one's; past it, the timers fire once overdue.
      logger.warn('sweep could not arm coming timers', { error: toBatonError(error).message });
    }
    const stale = await store.listOutboxActors(now - this.#alarmAgeMs);
    for (const actorId of stale) {
      logger.error(STALE_OUTBOX_LOG, {
        actor: actorId,
        alarmAgeMs: this.#alarmAgeMs,
      });
    }
    // Oldest first: what a budget leaves is the newest, which the next sweep takes up.
    const actors = await store.listOutboxActors(now - this.#minAgeMs);
    let next = 0;
    let drained = 0;
    let sent = 0;
    let failed = 0;
    let lagMs = 0;
    const drainNext = async () => {
      while (next < actors.length && clock.now() < deadline) {
        const actorId = actors[next++]!;
        try {
          const swept = await sweepOutboxOf(store, queue, actorId);
          sent += swept.sent;
          if (swept.oldestAt !== undefined) lagMs = Math.max(lagMs, now - swept.oldestAt);
          drained++;
        } catch (error) {
          failed++;
          logger.warn('sweep could not drain an outbox', {
            actor: actorId,
            error: toBatonError(error).message,
          });
        }
      }
    };
    const lanes = Math.min(this.#concurrency, actors.length);
    await Promise.all(Array.from({ length: lanes }, drainNext));
    const left = actors.length - next;
    if (left > 0) {
      logger.warn(SWEEP_BEHIND_LOG, { left, budgetMs, drained });
    }
    return { drained, sent, failed, timersFired, timersArmed, left, lagMs };
  }
}

/** `budgetMs`, refused unless it is a number ≥ 0 (`Infinity`: no limit). */
function checkedBudget(budgetMs: number): number {
  if (typeof budgetMs === 'number' && budgetMs >= 0) return budgetMs;
  throw invalidArgument(`sweeper budgetMs must be a number ≥ 0, got ${budgetMs}`, {
    option: 'budgetMs',
    value: budgetMs,
  });
}
