import { setTimeout as sleep } from 'node:timers/promises';
import type { Clock } from '@baton/core/adapter';
import { checkDuration } from './checkOptions.ts';
import type { EmbeddedBackend } from './createEmbeddedBackend.ts';

/** Options of `EmbeddedRuntime.idle`. */
export interface IdleOptions {
  /**
   * Durable timers due within this many ms of the call (on the runtime's clock) are waited for:
   * fired, handled, and whatever they send handled too. Later ones are left stored and counted
   * in the report. 0 waits only for the timers due already. Default: 1 000; on a clock of the
   * caller's own (`startEmbedded({ clock })`), 0, since time moves only when the caller moves it.
   */
  readonly timersWithinMs?: number;
}

/** What `EmbeddedRuntime.idle` left pending: the durable timers due after its bound. */
export interface IdleReport {
  /** Timers still stored, not waited for (a dead-lettered timer's fire is not counted). */
  readonly timersLater: number;
  /** When the soonest of them is due, epoch ms; `undefined` when there is none. */
  readonly nextTimerAt: number | undefined;
}

/** How long `idle()` waits for timers by default: short, so that an idle test stays quick. */
const DEFAULT_TIMERS_WITHIN_MS = 1_000;
const POLL_MS = 5;

/**
 * Resolves once the queue is empty, every outbox drained, and no stored timer is due by the
 * bound (fixed at the call, so a timer that keeps rescheduling itself does not hold it forever).
 */
export async function waitUntilIdle(
  backend: EmbeddedBackend,
  clock: Clock,
  options: IdleOptions = {},
): Promise<IdleReport> {
  checkDuration('idle({ timersWithinMs })', options.timersWithinMs);
  const until = clock.now() + (options.timersWithinMs ?? DEFAULT_TIMERS_WITHIN_MS);
  const { queue, store } = backend;
  for (;;) {
    const next = store.nextTimerAt();
    const timerDue = next !== undefined && next <= until;
    if (queue.counts().total === 0 && store.outboxSize() === 0 && !timerDue) {
      const later = await store.listDueTimers(Number.POSITIVE_INFINITY, Number.POSITIVE_INFINITY);
      return { timersLater: later.length, nextTimerAt: next };
    }
    await sleep(POLL_MS);
  }
}
