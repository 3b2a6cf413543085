import type { QueryInstance } from './QueryInstance.ts';

const MAX_RETRY_MS = 30_000;

/**
 * Batches re-runs: the first instance marked dirty arms one timer, and every instance marked
 * before it fires re-runs once, together. Instances are marked once however many changes arrive;
 * one marked while it runs has its run made stale instead (the engine then runs it again).
 *
 * @example
 * const scheduler = new RerunScheduler({ batchMs: 10, retryMs: 1000 }, (instance) => engine.run(instance));
 * scheduler.mark(instance); // runs it in 10 ms, with everything else marked meanwhile
 * await scheduler.flush(); // or now
 */
export class RerunScheduler {
  readonly #pending = new Set<QueryInstance>();
  readonly #running = new Set<Promise<void>>();
  readonly #batchMs: number;
  readonly #retryMs: number;
  readonly #run: (instance: QueryInstance) => Promise<void>;
  #timer: ReturnType<typeof setTimeout> | undefined;
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
    if (this.#timer === undefined) {
      this.#timer = setTimeout(() => this.#drain(), this.#batchMs);
      this.#timer.unref?.();
    }
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
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#pending.clear();
  }

  #drain(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    const batch = [...this.#pending];
    this.#pending.clear();
    for (const instance of batch) this.start(instance);
  }
}
