/**
 * The embedded store and queue as AWS would serve them: each call waits its modelled latency,
 * and the limits of the model hold — an actor's commits share its partition's write capacity,
 * each queue action its calls per second. A call over a limit waits for capacity, as the SDK's
 * retries of a throttled call would make it. Counts every call, for the report.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { DYNAMO_STORE_LIMITS } from '@baton/aws';
import type { Commit, Queue, Store } from '@baton/core/adapter';
import { type CallLatencies, commitMs, LATENCIES, LIMITS, type Limits } from './model.ts';

/**
 * A rate limit (the generic cell rate algorithm): each call books the next `cost / rate` of the
 * limit's time; a call may start when its booking begins at most `burstMs` from now (so up to
 * `burstMs` of capacity may be spent at once), and otherwise waits, or is refused.
 */
export class RateLimit {
  readonly #msPerUnit: number;
  readonly #burstMs: number;
  /** When the capacity booked so far is used up (ms, `performance.now()`). */
  #bookedUntil = 0;

  constructor(perSecond: number, burstMs = 50) {
    this.#msPerUnit = 1000 / perSecond;
    this.#burstMs = burstMs;
  }

  /** Spends `cost` units if the limit allows it now; false (nothing spent) if not. */
  tryTake(cost = 1): boolean {
    const now = performance.now();
    const start = Math.max(this.#bookedUntil, now);
    if (start - now > this.#burstMs) return false;
    this.#bookedUntil = start + cost * this.#msPerUnit;
    return true;
  }

  /** Waits until `cost` units may be spent, and spends them. */
  async take(cost = 1): Promise<void> {
    const now = performance.now();
    const start = Math.max(this.#bookedUntil, now);
    this.#bookedUntil = start + cost * this.#msPerUnit;
    const wait = start - now - this.#burstMs;
    if (wait > 0) await sleep(wait);
  }
}

/** Calls made through the modelled ports, by name. */
export type CallCounts = Record<string, number>;

/** The items a commit writes: the record alone is a `PutItem`, more make a transaction. */
export function commitItems(commit: Commit): number {
  return (
    1 +
    commit.outbox.length +
    commit.idempotency.length +
    (commit.replaceIdempotency?.length ?? 0) +
    (commit.outcomes ? 1 : 0) +
    (commit.deadLetters ? commit.deadLetters.put.length + commit.deadLetters.remove.length : 0) +
    (commit.overflow?.length ?? 0) +
    (commit.timers ? commit.timers.put.length + commit.timers.remove.length : 0)
  );
}

/** WCU of a commit: 1 per KB of the record as a `PutItem`, 2 per KB of each item in a transaction. */
function commitWcu(commit: Commit, items: number): number {
  const kb = Math.max(1, Math.ceil(JSON.stringify(commit.record).length / 1024));
  return items <= 1 ? kb : 2 * (kb + items - 1);
}

/** `store` with AWS's latencies and each actor's partition limit. */
export function modelledStore(
  store: Store,
  counts: CallCounts,
  latencies: CallLatencies = LATENCIES,
  limits: Limits = LIMITS,
): Store {
  const partitions = new Map<string, RateLimit>();
  const partition = (actorId: string) => {
    let limit = partitions.get(actorId);
    if (!limit) {
      limit = new RateLimit(limits.partitionWcu);
      partitions.set(actorId, limit);
    }
    return limit;
  };
  return new Proxy(store, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver);
      // DynamoDB's outcome pages: small, since it bills a write by the whole item.
      if (property === 'limits') {
        return { ...value, outcomePageBytes: DYNAMO_STORE_LIMITS.outcomePageBytes };
      }
      if (typeof value !== 'function') return value;
      // DynamoDB's store keeps a drained record's sends (the sweeper retires them): no such call.
      if (property === 'heldDrained') return undefined;
      if (property === 'commit') {
        return async (commit: Commit) => {
          const items = commitItems(commit);
          counts[items <= 1 ? 'store.putItem' : 'store.transact'] =
            (counts[items <= 1 ? 'store.putItem' : 'store.transact'] ?? 0) + 1;
          await partition(commit.record.id).take(commitWcu(commit, items));
          await sleep(commitMs(items, latencies));
          return target.commit(commit);
        };
      }
      // The sweeper's write of an idle actor's record without its held sends: an `UpdateItem`.
      if (property === 'retireHeldOutbox') {
        return async (
          actorId: string,
          ver: number,
          life: string | undefined,
          expiresAt: number | undefined,
        ) => {
          counts['store.retireHeldOutbox'] = (counts['store.retireHeldOutbox'] ?? 0) + 1;
          await sleep(latencies.putItem);
          return target.retireHeldOutbox(actorId, ver, life, expiresAt);
        };
      }
      // Every other call of the port (a load, an outbox read) is one read of an item or a query.
      return async (...args: unknown[]) => {
        const name = `store.${String(property)}`;
        counts[name] = (counts[name] ?? 0) + 1;
        await sleep(latencies.getItem);
        return value.apply(target, args);
      };
    },
  });
}

/** `queue` with AWS's latencies and SQS FIFO's calls per second for each action. */
export function modelledQueue(
  queue: Queue,
  counts: CallCounts,
  latencies: CallLatencies = LATENCIES,
  limits: Limits = LIMITS,
): Queue {
  const actions = new Map<string, RateLimit>();
  const timed = new Set(['send', 'receive', 'ack', 'release']);
  return new Proxy(queue, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver);
      if (typeof value !== 'function' || !timed.has(String(property))) {
        return typeof value === 'function' ? value.bind(target) : value;
      }
      const name = String(property);
      let action = actions.get(name);
      if (!action) {
        action = new RateLimit(limits.queueCallsPerAction);
        actions.set(name, action);
      }
      if (name === 'receive') {
        // A worker's receive that finds the queue empty long-polls on AWS: it is not charged
        // to the limit here (the model's bound is on receives of batches).
        return async (...args: unknown[]) => {
          await sleep(latencies.receive);
          const received = await value.apply(target, args);
          if (received.length === 0) return received;
          counts['queue.receive'] = (counts['queue.receive'] ?? 0) + 1;
          await action.take();
          return received;
        };
      }
      return async (...args: unknown[]) => {
        counts[`queue.${name}`] = (counts[`queue.${name}`] ?? 0) + 1;
        await action.take();
        await sleep(latencies.queueCall);
        return value.apply(target, args);
      };
    },
  });
}
