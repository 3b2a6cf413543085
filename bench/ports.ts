/**
 * Store and queue wrappers for the benchmarks: count every call, and optionally add a modelled
 * network latency to each one so the embedded backend behaves a little more like DynamoDB + SQS.
 */
import type { Queue, Store } from '@baton/core/adapter';

/** Calls made through an {@link instrument}ed store and queue, by port and method. */
export type CallCounts = Record<string, number>;

export interface Instrumented {
  readonly store: Store;
  readonly queue: Queue;
  readonly calls: CallCounts;
}

/**
 * Waits about `ns` nanoseconds without blocking the event loop. `setTimeout` rounds to whole
 * milliseconds (and usually overshoots by more), far too coarse for a sub-millisecond round
 * trip; re-checking the clock on every `setImmediate` turn is accurate to a few microseconds.
 */
export function spinDelay(ns: number): Promise<void> {
  const end = process.hrtime.bigint() + BigInt(Math.round(ns));
  return new Promise((resolve) => {
    const tick = () => {
      if (process.hrtime.bigint() >= end) resolve();
      else setImmediate(tick);
    };
    setImmediate(tick);
  });
}

/**
 * Wraps `store` and `queue` so that every call is counted and, when `latencyNs > 0`, waits
 * `latencyNs` before reaching the real port (one round trip per call, as over a network).
 */
export function instrument(store: Store, queue: Queue, latencyNs = 0): Instrumented {
  const calls: CallCounts = {};
  const hop = async (name: string): Promise<void> => {
    calls[name] = (calls[name] ?? 0) + 1;
    if (latencyNs > 0) await spinDelay(latencyNs);
  };
  // Every other method (the port grows) passes straight through.
  const wrappedStore = overlay<Store>(store, {
    load: async (actorId) => {
      await hop('store.load');
      return store.load(actorId);
    },
    commit: async (commit) => {
      await hop('store.commit');
      return store.commit(commit);
    },
    readOutbox: async (actorId) => {
      await hop('store.readOutbox');
      return store.readOutbox(actorId);
    },
    deleteOutbox: async (actorId, seqs, life) => {
      await hop('store.deleteOutbox');
      return store.deleteOutbox(actorId, seqs, life);
    },
    readOverflow: async (actorId, keys) => {
      await hop('store.readOverflow');
      return store.readOverflow(actorId, keys);
    },
    readDeadLetter: async (actorId, messageId) => {
      await hop('store.readDeadLetter');
      return store.readDeadLetter(actorId, messageId);
    },
    retireHeldOutbox: async (actorId, ver, life, expiresAt) => {
      await hop('store.retireHeldOutbox');
      return store.retireHeldOutbox(actorId, ver, life, expiresAt);
    },
    listOutboxActors: async (olderThan) => {
      await hop('store.listOutboxActors');
      return store.listOutboxActors(olderThan);
    },
    readIdempotency: async (key) => {
      await hop('store.readIdempotency');
      return store.readIdempotency(key);
    },
  });
  const wrappedQueue: Queue = {
    send: async (messages) => {
      await hop('queue.send');
      return queue.send(messages);
    },
    receive: async (options) => {
      await hop('queue.receive');
      return queue.receive(options);
    },
    ack: async (receipts) => {
      await hop('queue.ack');
      return queue.ack(receipts);
    },
    release: async (receipts, delayMs) => {
      await hop('queue.release');
      return queue.release(receipts, delayMs);
    },
  };
  return { store: wrappedStore, queue: wrappedQueue, calls };
}

/**
 * `port` with some of its methods replaced: the others are the port's own, bound to it once, and
 * its other members read through, so a wrapper keeps working when the port gains methods. A
 * plain object, not a Proxy: code the engine runs through a Proxy is optimized for it, and the
 * rows after the one that used it would pay for that too.
 */
export function overlay<T extends object>(port: T, methods: Partial<T>): T {
  const wrapped: Record<PropertyKey, unknown> = { ...methods };
  for (let from: object | null = port; from && from !== Object.prototype; ) {
    for (const name of Reflect.ownKeys(from)) {
      if (name === 'constructor' || Object.hasOwn(wrapped, name)) continue;
      const value = Reflect.get(port, name);
      if (typeof value === 'function') wrapped[name] = value.bind(port);
      else Object.defineProperty(wrapped, name, { get: () => Reflect.get(port, name) });
    }
    from = Object.getPrototypeOf(from);
  }
  return wrapped as T;
}

/** `store.commit 1, queue.receive 1.1` — calls per `per` operations, sorted by name. */
export function formatCalls(calls: CallCounts, per: number): string {
  return Object.keys(calls)
    .sort()
    .map((name) => `${name} ${formatCount(calls[name]! / per)}`)
    .join(', ');
}

/** Total calls per `per` operations. */
export function callsPer(calls: CallCounts, per: number): number {
  let total = 0;
  for (const count of Object.values(calls)) total += count;
  return total / per;
}

function formatCount(value: number): string {
  if (Number.isInteger(value)) return String(value);
  return value >= 0.1 ? value.toFixed(2) : value.toPrecision(1);
}
