/**
 * Fires the embedded backend's durable timers on time: sleeps until the soonest one not fired
 * yet is due, sends its fire into the inbox, and wakes sooner when a commit schedules a timer
 * due before its next wake. A fire it sent is not sent again by this process; after a restart
 * every stored timer is fired anew, which is harmless (a fire is applied only while its timer
 * is stored, and the handling commit removes it).
 */
import { toBatonError } from '@baton/core';
import { type Engine, fireTimers } from '@baton/core/engine';
import type { EmbeddedStore } from './EmbeddedStore.ts';

/** setTimeout's longest wait (about 24.8 days); a later timer is looked at again then. */
const MAX_WAIT_MS = 2 ** 31 - 1;
/** Timers looked at per pass, soonest first. */
const PASS = 1_000;

/**
 * @example
 * const pump = new TimerPump(engine, backend.store); // what startEmbedded runs
 * await pump.stop();
 */
export class TimerPump {
  readonly #engine: Engine;
  readonly #store: EmbeddedStore;
  /** `actorId`, timer id and gen of the fires sent, pruned to the timers still stored. */
  #fired = new Set<string>();
  #wake: ReturnType<typeof setTimeout> | undefined;
  /** When the pump wakes next, epoch ms; `undefined` when it waits for a commit. */
  #wakeAt: number | undefined;
  #running = true;
  #pass: Promise<void> = Promise.resolve();
  readonly #unsubscribe: () => void;

  /** The longest real wait between two looks (see the constructor). */
  readonly #maxWaitMs: number;

  /**
   * `maxWaitMs` bounds each real wait: a clock of the caller's own (a test's VirtualClock) moves
   * by `advance`, which no real timer follows, so the pump then looks again that often.
   */
  constructor(engine: Engine, store: EmbeddedStore, maxWaitMs = MAX_WAIT_MS) {
    this.#engine = engine;
    this.#store = store;
    this.#maxWaitMs = maxWaitMs;
    this.#unsubscribe = store.watchTimers((timer) => {
      if (this.#wakeAt === undefined || timer.at < this.#wakeAt) this.#schedule(timer.at);
    });
    this.#schedule(engine.clock.now());
  }

  /** Stops waking; waits for a pass under way. */
  async stop(): Promise<void> {
    this.#running = false;
    this.#unsubscribe();
    clearTimeout(this.#wake);
    await this.#pass;
  }

  /** Wakes at `at` (epoch ms) instead of the wake planned, at most `maxWaitMs` of real time on. */
  #schedule(at: number, maxWaitMs = this.#maxWaitMs): void {
    if (!this.#running) return;
    clearTimeout(this.#wake);
    this.#wakeAt = at;
    const delay = Math.min(Math.max(0, at - this.#engine.clock.now()), maxWaitMs);
    this.#wake = setTimeout(() => {
      this.#wakeAt = undefined;
      this.#pass = this.#pass.then(() => this.#fireDue());
    }, delay);
  }

  async #fireDue(): Promise<void> {
    if (!this.#running) return;
    const { clock, queue, logger } = this.#engine;
    try {
      const timers = await this.#store.listDueTimers(Number.POSITIVE_INFINITY, PASS);
      const now = clock.now();
      const stored = new Set(timers.map(keyOf));
      this.#fired = new Set([...this.#fired].filter((key) => stored.has(key)));
      const pending = timers.filter((timer) => !this.#fired.has(keyOf(timer)));
      const due = pending.filter((timer) => timer.at <= now);
      await fireTimers(queue, due);
      for (const timer of due) this.#fired.add(keyOf(timer));
      const next = pending.find((timer) => timer.at > now);
      if (next && (this.#wakeAt === undefined || next.at < this.#wakeAt)) this.#schedule(next.at);
    } catch (error) {
      logger.error('firing due timers failed; retrying in 1 s', {
        error: toBatonError(error).message,
      });
      // A second of real time, whatever the clock: not at every look of a clock a test moves.
      this.#schedule(clock.now() + 1_000, 1_000);
    }
  }
}

const keyOf = (timer: { actorId: string; id: string; gen: string }) =>
  `${timer.actorId}\u0000${timer.id}\u0000${timer.gen}`;
