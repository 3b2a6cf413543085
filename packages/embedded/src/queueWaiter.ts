import type { EmbeddedQueue } from './EmbeddedQueue.ts';

/** See {@link queueWaiter}. */
export interface QueueWaiter {
  /**
   * Resolves when a message may be receivable (a send, a release, a timeout), or within
   * `maxWaitMs` (1 s by default; less on a clock a test moves, which no real timer follows).
   */
  waitForWork(): Promise<void>;
  /** Ends every pending `waitForWork` at once. */
  wake(): void;
  /** Stops listening to the queue and ends the pending waits. */
  close(): void;
}

/**
 * The sleep of worker loops over an embedded queue (`startWorkerLoops`' `waitForWork` and
 * `wake`): woken by the queue as soon as a message may be receivable, not polling it.
 *
 * @example
 * const waiter = queueWaiter(backend.queue);
 * const loops = startWorkerLoops(worker, waiter);
 */
export function queueWaiter(
  queue: EmbeddedQueue,
  now: () => number = Date.now,
  maxWaitMs = 1000,
): QueueWaiter {
  const sleepers = new Set<() => void>();
  const wake = () => {
    if (sleepers.size === 0) return; // the usual case while the workers are busy: no copy
    for (const done of [...sleepers]) done();
  };
  const unsubscribe = queue.onAvailable(wake);
  return {
    waitForWork: () =>
      new Promise<void>((resolve) => {
        const next = queue.nextVisibleAt();
        const delay = next === undefined ? maxWaitMs : Math.max(0, next - now());
        const timer = setTimeout(done, Math.min(delay, maxWaitMs));
        sleepers.add(done);
        function done() {
          clearTimeout(timer);
          sleepers.delete(done);
          resolve();
        }
      }),
    wake,
    close() {
      unsubscribe();
      wake();
    },
  };
}
