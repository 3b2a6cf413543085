import type { QueryInstance } from './QueryInstance.ts';

const MAX_RETRY_MS = 30_000;

/**
 * Batches re-runs: the first instance marked dirty arms one drain, and every instance marked
 * before it comes re-runs once, together. Batches start at most every `batchMs`: a change that
 * comes `batchMs` or more after the last batch drains at the end of the current turn of the
 * event loop (`setImmediate`, with everything marked in that turn: a quiet app pays no wait);
 * one that comes sooner waits until `batchMs` after that batch (a busy app re-runs at most that
 * often). Instances are marked once however many changes arrive; one marked while it runs has
 * its run made stale instead (the engine then runs it again).
 *
 * @example
 * const scheduler = new RerunScheduler({ batchMs: 10, retryMs: 1000 }, (instance) => engine.run(instance));
 * scheduler.mark(instance); // after this turn, or 10 ms after the last batch if that is later
 * await scheduler.flush(); // or now
 */
export class RerunScheduler {
  readonly #pending = new Set<QueryInstance>();
  readonly #running = new Set<Promise<void>>();
  readonly #batchMs: number;
  readonly #retryMs: number;
  readonly #run: (instance: QueryInstance) => Promise<void>;
  /** Cancels the armed drain; undefined when none is armed. */
  #timer: (() => void) | undefined;
  /** When the last batch was drained (`Date.now()`, which fake timers move). */
  #lastDrain = Number.NEGATIVE_INFINITY;
  #stopped = false;

  constructor(
    timing: { readonly batchMs: number; readonly retryMs: number },
    run: (instance: QueryInstance) => Promise<void>,
  ) {
    this.#batchMs = timing.batchMs;
    this.#retryMs = timing.retryMs;
    this.#run = run;
  }

  /** Marks an instance dirty: it re-runs with the next batch (or its run in progress is stale). */
  mark(instance: QueryInstance): void {
    if (instance.closed || this.#stopped || instance.state === 'pending') return;
    if (instance.state === 'running') {
      instance.invalidate();
      return;
    }
    instance.state = 'pending';
    this.#pending.add(instance);
    this.#timer ??= this.#arm();
  }

  /** Runs an instance now (its first run). */
  start(instance: QueryInstance): void {
    const run = this.#run(instance).finally(() => this.#running.delete(run));
    this.#running.add(run);
  }

  /**
   * Marks an instance again after a retryable failure (a store outage), even if nothing changes:
   * after `retryMs`, doubling on each failure in a row up to 30 s.
   */
  retry(instance: QueryInstance): void {
    const delay = Math.min(Math.max(instance.retryDelayMs * 2, this.#retryMs), MAX_RETRY_MS);
    instance.retryDelayMs = delay;
    instance.retryTimer = setTimeout(() => this.mark(instance), delay);
    instance.retryTimer.unref?.();
  }

  /** Forgets a dropped instance. */
  forget(instance: QueryInstance): void {
    this.#pending.delete(instance);
    clearTimeout(instance.retryTimer);
  }

  /** Runs every pending instance now, and waits until none is pending or running. */
  async flush(): Promise<void> {
    for (;;) {
      this.#drain();
      if (this.#running.size === 0) return;
      await Promise.all(this.#running);
    }
  }

  stop(): void {
    this.#stopped = true;
    this.#timer?.();
    this.#timer = undefined;
    this.#pending.clear();
  }

  #arm(): () => void {
    // setTimeout(0) waits at least 1 ms in Node: a batch due now drains after this turn instead.
    const wait = this.#lastDrain + this.#batchMs - Date.now();
    if (wait <= 0) {
      const immediate = setImmediate(() => this.#drain());
      immediate.unref?.();
      return () => clearImmediate(immediate);
    }
    const timer = setTimeout(() => this.#drain(), wait);
    timer.unref?.();
    return () => clearTimeout(timer);
  }

  #drain(): void {
    this.#lastDrain = Date.now();
    this.#timer?.();
    this.#timer = undefined;
    const batch = [...this.#pending];
    this.#pending.clear();
    for (const instance of batch) this.start(instance);
  }
}
