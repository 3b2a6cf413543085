/**
 * What `baton backlog` counts of one actor, from what Baton records — never from the inbox queue,
 * which counts no message per actor — and the order it lists actors in.
 */
import type { FailingMessage } from '@baton/core/adapter';
import { type FailingJson, failingJson } from '../inspectedFailing.ts';

/** One actor's row of `baton backlog`. */
export interface ActorBacklog {
  readonly actor: string;
  /** Messages Baton holds for it: parked, timers due, sends to it not yet drained. */
  readonly waiting: number;
  /** How long the oldest of those has waited (ms); `null` when none waits. */
  readonly oldestWaitingAgeMs: number | null;
  /** The message its inbox stops at, whose handler keeps failing: later ones wait behind it. */
  readonly failing: FailingJson | null;
  /** Messages parked while it is paused, applied when it is resumed. */
  readonly parked: number;
  /** Its timers due and not fired yet. */
  readonly timersDue: number;
  /**
   * Sends to it that other actors committed a while ago, still in their outboxes, that it has not
   * applied (by its mark for each sender).
   */
  readonly undrainedSends: number;
  /** Its dead letters, waiting for a redrive or a purge (not counted in `waiting`). */
  readonly deadLetters: number;
}

/** Gathers each actor's counts from what the reads found. */
export class BacklogTally {
  readonly #actors = new Map<
    string,
    {
      failing?: FailingMessage;
      parked: number;
      timersDue: number;
      undrainedSends: number;
      deadLetters: number;
      oldest: number;
    }
  >();

  #of(actor: string) {
    let entry = this.#actors.get(actor);
    if (!entry) {
      entry = { parked: 0, timersDue: 0, undrainedSends: 0, deadLetters: 0, oldest: Infinity };
      this.#actors.set(actor, entry);
    }
    return entry;
  }

  failing(actor: string, failing: FailingMessage): void {
    this.#of(actor).failing = failing;
  }

  /** A message waiting for `actor` since `at` (epoch ms). */
  waiting(actor: string, kind: 'parked' | 'timersDue' | 'undrainedSends', at: number): void {
    const entry = this.#of(actor);
    entry[kind]++;
    entry.oldest = Math.min(entry.oldest, at);
  }

  deadLetter(actor: string): void {
    this.#of(actor).deadLetters++;
  }

  /**
   * The actors, failing ones first (they are stuck: their later messages wait behind it in the
   * queue, uncounted), most attempts first; then most messages waiting, oldest first, most dead
   * letters.
   */
  rows(now: number): ActorBacklog[] {
    const rows = [...this.#actors].map(([actor, e]): ActorBacklog => {
      const waiting = e.parked + e.timersDue + e.undrainedSends;
      return {
        actor,
        waiting,
        oldestWaitingAgeMs: waiting > 0 ? Math.max(0, now - e.oldest) : null,
        failing: failingJson(e.failing),
        parked: e.parked,
        timersDue: e.timersDue,
        undrainedSends: e.undrainedSends,
        deadLetters: e.deadLetters,
      };
    });
    return rows.sort(
      (a, b) =>
        (b.failing?.attempts ?? -1) - (a.failing?.attempts ?? -1) ||
        b.waiting - a.waiting ||
        (b.oldestWaitingAgeMs ?? -1) - (a.oldestWaitingAgeMs ?? -1) ||
        b.deadLetters - a.deadLetters ||
        (a.actor < b.actor ? -1 : 1),
    );
  }
}
