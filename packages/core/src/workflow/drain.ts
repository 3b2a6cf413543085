/**
 * How a replay waits for its run to settle: the run awaits only commands, so once the microtasks
 * it queued have run, it waits on what the replayer does next.
 */

const macrotask: (fn: () => void) => void =
  typeof globalThis.setImmediate === 'function'
    ? (fn) => globalThis.setImmediate(fn)
    : (fn) => setTimeout(fn, 0);

/** Resolves once every microtask the run queued has run (the run awaits only commands). */
export const drain = () => new Promise<void>((resolve) => macrotask(resolve));
