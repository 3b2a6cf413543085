import { invalidArgument } from '../adapter/invalidArgument.ts';
import { toBatonError } from '../errors.ts';
import { createEngine, type Engine, type EngineOptions } from './createEngine.ts';
import { sweepOutboxes } from './drainOutbox.ts';
import { armComingTimers, fireDueTimers } from './timers.ts';

/** The message the sweeper logs (as an error) per outbox item older than the alarm age. */
export const STALE_OUTBOX_LOG = 'outbox item older than the alarm age: its drain keeps failing';

/**
 * The line a scheduled sweeper logs (info) after each sweep, with the {@link SweepResult} as
 * fields: an alarm on its `lagMs`, and on its absence, catches a sweeper that runs late or not
 * at all; another on its `deadLetters` stays raised while any dead letter is kept.
 */
export const SWEEP_LOG = 'sweep done';

/**
 * Groups of actors ({@link SWEEP_GROUP}) a sweep drains at once by default: on AWS's latencies
 * about 950 actors a second, with about 95 sends to the inbox a second, a third of what a FIFO
 * inbox takes without high-throughput mode.
 */
export const SWEEP_CONCURRENCY = 2;

/**
 * Actors a lane of the sweeper drains together: their sends go out together, ten to a
 * `SendMessageBatch` (the most SQS takes), their reads and writes side by side.
 */
export const SWEEP_GROUP = 10;

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
  /**
   * How many dead letters every actor keeps at the end of the sweep, parked messages included:
   * messages that wait on an operator (`baton dead-letters`, `baton actors resume`). Absent for
   * a store without `countDeadLetters`, and when the count failed (the sweep logs a warning).
   */
  readonly deadLetters?: number;
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
   * Groups of {@link SWEEP_GROUP} actors one sweep drains at once ({@link SWEEP_CONCURRENCY}
   * unless given). Most of a sweep's work is retiring the sends that idle actors' records still
   * hold: a read of the record and one of its items apart, its sends again (a group's together,
   * in one call to the inbox), which share the inbox's calls per second with the workers' drains
   * and the clients' sends, and a write of the record (see docs/scale.md, "The sweeper").
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
    this.#budgetMs = checkedBudget(options.budgetMs ?? Infinity);
    if (!Number.isInteger(this.#concurrency) || this.#concurrency < 1) {
      throw invalidArgument(
        `sweeper concurrency must be a whole number ≥ 1, got ${this.#concurrency}`,
        { option: 'concurrency', value: this.#concurrency },
      );
    }
  }

  async sweep(options: SweepOptions = {}): Promise<SweepResult> {
    const { store, clock, logger } = this.engine;
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
    const outboxes = await this.#drain(actors, now, deadline);
    if (outboxes.left > 0) {
      logger.warn(SWEEP_BEHIND_LOG, { left: outboxes.left, budgetMs, drained: outboxes.drained });
    }
    const { drained, sent, failed, left, lagMs } = outboxes;
    const deadLetters = await this.#countDeadLetters();
    return {
      drained,
      sent,
      failed,
      timersFired,
      timersArmed,
      left,
      lagMs,
      ...(deadLetters === undefined ? {} : { deadLetters }),
    };
  }

  /**
   * The dead letters kept, by the store's count; undefined for a store without one (listing
   * would read every letter every sweep) and when the count failed.
   */
  async #countDeadLetters(): Promise<number | undefined> {
    const { store, logger } = this.engine;
    if (!store.countDeadLetters) return undefined;
    try {
      return await store.countDeadLetters();
    } catch (error) {
      logger.warn('sweep could not count the dead letters kept', {
        error: toBatonError(error).message,
      });
      return undefined;
    }
  }

  /**
   * Drains the outboxes of `actors` in their order until `deadline`: `concurrency` lanes, each a
   * group of actors at a time, their sends together. A group that fails is drained again actor by
   * actor, so that one failing actor holds up no other.
   */
  async #drain(
    actors: readonly string[],
    now: number,
    deadline: number,
  ): Promise<Pick<SweepResult, 'drained' | 'sent' | 'failed' | 'left' | 'lagMs'>> {
    const { store, queue, clock, logger } = this.engine;
    const result = { drained: 0, sent: 0, failed: 0, left: 0, lagMs: 0 };
    const sweep = async (group: readonly string[]) => {
      const swept = await sweepOutboxes(store, queue, group);
      result.sent += swept.sent;
      if (swept.oldestAt !== undefined) {
        result.lagMs = Math.max(result.lagMs, now - swept.oldestAt);
      }
      result.drained += group.length;
    };
    const failedOne = (actorId: string, error: unknown) => {
      result.failed++;
      logger.warn('sweep could not drain an outbox', {
        actor: actorId,
        error: toBatonError(error).message,
      });
    };
    let next = 0;
    const lane = async () => {
      while (next < actors.length && clock.now() < deadline) {
        const group = actors.slice(next, next + SWEEP_GROUP);
        next += group.length;
        try {
          await sweep(group);
        } catch (error) {
          if (group.length === 1) {
            failedOne(group[0]!, error);
            continue;
          }
          for (const actorId of group) {
            await sweep([actorId]).catch((alone: unknown) => failedOne(actorId, alone));
          }
        }
      }
    };
    const lanes = Math.min(this.#concurrency, Math.ceil(actors.length / SWEEP_GROUP));
    await Promise.all(Array.from({ length: lanes }, lane));
    result.left = actors.length - next;
    return result;
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
