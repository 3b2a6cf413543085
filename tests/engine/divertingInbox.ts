/**
 * An app on the embedded backend whose inbox can send messages to the queue's dead-letter queue
 * instead of (or as well as) delivering them, for tests of copies that come back days later.
 */
import type { AnyActorDefinition } from '@baton/core';
import { silentLogger } from '@baton/core';
import { decodeEnvelope, type Queue, type QueueMessage } from '@baton/core/adapter';
import { fireDueTimers, Worker } from '@baton/core/engine';
import { runUntilIdle, setup } from './helpers.ts';

export const DAY = 24 * 60 * 60 * 1000;

/** What the queue does with a message: deliver it, also keep a copy (`copy`), or only keep it. */
export type Divert = (message: QueueMessage) => 'copy' | 'only' | undefined;

/**
 * `inner` as a worker's inbox: what it sends goes to `dlq` as `divert` says (`copy` — delivered
 * too; `only` — never delivered), the rest as it is.
 */
export function divertingQueue(inner: Queue, divert: Divert, dlq: QueueMessage[]): Queue {
  return {
    send: async (messages) => {
      const kept = messages.filter((m) => {
        const how = divert(m);
        if (how !== undefined) dlq.push(m);
        return how !== 'only';
      });
      if (kept.length > 0) await inner.send(kept);
    },
    receive: (o) => inner.receive(o),
    ack: (r) => inner.ack(r),
    release: (r, d) => inner.release(r, d),
  };
}

/**
 * An app on the embedded backend whose inbox moves the messages `divert` names into `dlq` (the
 * queue's dead-letter queue): `copy` — a worker committed it and never acked, so a copy waits
 * there too; `only` — it never reached its actor.
 */
export function divertingApp(
  actors: readonly AnyActorDefinition[],
  divert: { fn: Divert },
  options: { maxAttempts?: number; markRetentionMs?: number } = {},
) {
  const h = setup({ actors });
  const inner = h.backend.queue;
  const dlq: QueueMessage[] = [];
  const queue = divertingQueue(inner, (m) => divert.fn(m), dlq);
  const worker = new Worker({
    actors,
    store: h.backend.store,
    queue,
    clock: h.clock,
    logger: silentLogger,
    ...options,
  });
  let redrives = 0;
  return {
    h,
    dlq,
    run: () => runUntilIdle(worker, h.backend, h.clock),
    /** The operator redrives dead-letter queue messages, each under a dedupe id of its own. */
    redrive: (messages: readonly QueueMessage[]) =>
      inner.send(messages.map((m) => ({ ...m, dedupeId: `redrive-${++redrives}-${m.dedupeId}` }))),
    /** Fires every stored timer due by now (the sweeper's, the relay's job). */
    fire: () => fireDueTimers(h.engine, h.clock.now()),
    letters: (actorId: string) => h.backend.store.listDeadLetters(actorId),
  };
}

export const nameOf = (m: QueueMessage) => decodeEnvelope(m.body)?.name;
export const envelopeOf = (m: QueueMessage) => decodeEnvelope(m.body)!;
