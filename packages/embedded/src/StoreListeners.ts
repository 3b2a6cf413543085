/**
 * The embedded store's listeners: its change feed (every committed actor record), the outcomes
 * committed and the timers a commit schedules. Each is called synchronously, in commit order,
 * with copies; one that throws goes to `onListenerError` and the commit stays done.
 */
import type { ActorRecord, IdempotencyRecord, Timer } from '@baton/core/adapter';
import { deepCopy } from '@baton/core/shared';
import { Notifier } from './Notifier.ts';
import { type CommitEntry, unpaged } from './StoreTables.ts';

export class StoreListeners {
  readonly #changes: Notifier<ActorRecord>;
  readonly #outcomes: Notifier<IdempotencyRecord>;
  readonly #timersPut: Notifier<Timer>;

  constructor(onListenerError?: (error: unknown) => void) {
    const onError =
      onListenerError ??
      ((error: unknown) => console.error('@baton/embedded: a store listener threw', error));
    this.#changes = new Notifier((record) => deepCopy(record), onError);
    this.#outcomes = new Notifier((record) => deepCopy(record), onError);
    this.#timersPut = new Notifier((timer) => deepCopy(timer), onError);
  }

  /** Tells the listeners what a commit applied: its record, its outcomes, the timers it put. */
  committed(entry: CommitEntry): void {
    this.#changes.emit(entry.record!);
    for (const outcome of entry.idempotency) this.#outcomes.emit(outcome);
    if (this.#outcomes.size > 0) {
      for (const outcome of entry.outcomes?.records ?? []) this.#outcomes.emit(unpaged(outcome));
    }
    for (const timer of entry.timers?.put ?? []) {
      if (!timer.deadLettered) this.#timersPut.emit(timer);
    }
  }

  /** Tells the change feed of a record written otherwise than by a commit. */
  changed(record: ActorRecord): void {
    this.#changes.emit(record);
  }

  subscribe(listener: (record: ActorRecord) => void): () => void {
    return this.#changes.subscribe(listener);
  }

  watchTimers(listener: (timer: Timer) => void): () => void {
    return this.#timersPut.subscribe(listener);
  }

  watchOutcomes(listener: (record: IdempotencyRecord) => void): () => void {
    return this.#outcomes.subscribe(listener);
  }
}
