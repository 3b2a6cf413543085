/**
 * The load simulation's scenarios: the real engine (one `Worker` per simulated Lambda container,
 * each with its own warm cache) on one embedded backend whose store and queue wait AWS's
 * latencies and hold its limits (`modelledPorts.ts`). Each scenario measures what the model
 * predicts, and checks that every message was applied exactly once.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { actor, silentLogger } from '@baton/core';
import { encodeEnvelope, INGRESS, type QueueMessage } from '@baton/core/adapter';
import { Sweeper, sweepOutboxOf, Worker } from '@baton/core/engine';
import { createEmbeddedBackend, type EmbeddedBackend, queueWaiter } from '@baton/embedded';
import * as z from 'zod';
// The stream function's push queue itself, as it runs in production (not exported by the package).
import { type PushOptions, PushQueue } from '../../packages/aws/src/websocket/PushQueue.ts';
import { LATENCIES, LIMITS } from './model.ts';
import { type CallCounts, modelledQueue, modelledStore, RateLimit } from './modelledPorts.ts';

/** Counts what it is sent; `at` is when the client sent the last one (`performance.now()`). */
export const Tally = actor({
  name: 'tally',
  state: z.object({ n: z.number().int(), at: z.number() }),
  initial: () => ({ n: 0, at: 0 }),
  handlers: {
    add: {
      payload: z.object({ at: z.number() }),
      handle: (ctx, { at }) => {
        ctx.state.n += 1;
        ctx.state.at = at;
      },
    },
  },
});

/** An ingress message to tally `key`, stamped with the time it is sent. */
export function message(key: string, n: number): QueueMessage {
  const to = Tally.ref(key).id;
  const envelope = {
    id: `m-${n}`,
    from: INGRESS,
    seq: 0,
    to,
    name: 'add',
    payload: { at: performance.now() },
    sentAt: Date.now(),
  };
  return { group: to, dedupeId: envelope.id, body: encodeEnvelope(envelope) };
}

/** A running simulated deployment: `containers` workers over the modelled backend. */
export interface Deployment {
  readonly backend: EmbeddedBackend;
  readonly counts: CallCounts;
  /** Sends through the modelled queue, as a client does (its latency and limit). */
  send(messages: readonly QueueMessage[]): Promise<void>;
  /** Commit latencies (ms from the client's send to the commit), one per commit. */
  readonly latencies: number[];
  /** Starts the workers. */
  start(): void;
  /** Resolves once the queue is empty and every worker idle. */
  drained(): Promise<void>;
  /** Stops the workers (the backend stays open, to be read). */
  stop(): Promise<void>;
}

export function deploy(containers: number): Deployment {
  const backend = createEmbeddedBackend();
  const counts: CallCounts = {};
  const store = modelledStore(backend.store, counts);
  const queue = modelledQueue(backend.queue, counts);
  const latencies: number[] = [];
  const onCommit = (commit: { record: { state: unknown } }) => {
    const { at } = commit.record.state as { at: number };
    latencies.push(performance.now() - at);
  };
  const waiter = queueWaiter(backend.queue);
  let running = true;
  let busy = 0;
  let loops: Promise<void>[] = [];
  const loop = async () => {
    const worker = new Worker({
      actors: [Tally],
      store,
      queue,
      batchSize: 10,
      logger: silentLogger,
      onCommit,
    });
    while (running) {
      busy++;
      const received = await worker.poll();
      busy--;
      if (received === 0 && running) await waiter.waitForWork();
    }
  };
  return {
    backend,
    counts,
    latencies,
    send: (messages) => queue.send(messages),
    start() {
      loops = Array.from({ length: containers }, loop);
    },
    async drained() {
      while (backend.queue.counts().total > 0 || busy > 0) await sleep(2);
    },
    async stop() {
      running = false;
      waiter.close();
      await Promise.all(loops);
    },
  };
}

/** Checks that each tally counted what it was sent: exactly once, nothing lost. */
export async function checkApplied(
  backend: EmbeddedBackend,
  sent: ReadonlyMap<string, number>,
): Promise<void> {
  for (const [key, expected] of sent) {
    const record = await backend.store.load(Tally.ref(key).id);
    const n = (record?.state as { n?: number } | undefined)?.n ?? 0;
    if (n !== expected) throw new Error(`tally ${key} applied ${n} of ${expected} messages`);
  }
}

/** Fills the queue (untimed, unmodelled), then times the workers draining it. */
export async function drainTime(
  containers: number,
  keys: readonly string[],
): Promise<{ seconds: number; counts: CallCounts }> {
  const d = deploy(containers);
  const sent = new Map<string, number>();
  const messages = keys.map((key, n) => {
    sent.set(key, (sent.get(key) ?? 0) + 1);
    return message(key, n);
  });
  for (let i = 0; i < messages.length; i += 500) {
    await d.backend.queue.send(messages.slice(i, i + 500));
  }
  const t0 = performance.now();
  d.start();
  await d.drained();
  const seconds = (performance.now() - t0) / 1000;
  await d.stop();
  await checkApplied(d.backend, sent);
  d.backend.close();
  return { seconds, counts: d.counts };
}

/**
 * Sends `total` messages to random tallies of `actors` through the modelled queue, `perSecond`
 * of them a second (Poisson arrivals), with the workers running: the commit latencies.
 */
export async function openLoop(
  containers: number,
  actors: number,
  perSecond: number,
  total: number,
  random: () => number,
): Promise<{ latencies: number[]; counts: CallCounts }> {
  const d = deploy(containers);
  d.start();
  const sent = new Map<string, number>();
  const sends: Promise<void>[] = [];
  for (let n = 0; n < total; n++) {
    const key = `t${Math.floor(random() * actors)}`;
    sent.set(key, (sent.get(key) ?? 0) + 1);
    sends.push(d.send([message(key, n)]));
    await sleep(-Math.log(1 - random()) * (1000 / perSecond));
  }
  await Promise.all(sends);
  await d.drained();
  await d.stop();
  await checkApplied(d.backend, sent);
  d.backend.close();
  return { latencies: d.latencies, counts: d.counts };
}

/**
 * One result pushed to `subscribers` connections through the stream function's push queue, each
 * `PostToConnection` taking its modelled latency and refused as throttled (429) past the
 * account's `limit` (AWS: 10,000/s, 5,000 burst), as API Gateway does. Seconds until all have it.
 */
export async function fanOut(
  subscribers: number,
  options: PushOptions,
  limit: { perSecond: number; burst: number } = { perSecond: LIMITS.pushesPerSecond, burst: 5_000 },
): Promise<{ seconds: number; throttled: number }> {
  const account = new RateLimit(limit.perSecond, (limit.burst / limit.perSecond) * 1000);
  const delivered = new Set<string>();
  const post = async (connectionId: string) => {
    await sleep(LATENCIES.post);
    if (!account.tryTake()) {
      throw Object.assign(new Error('throttled'), {
        name: 'LimitExceededException',
        $metadata: { httpStatusCode: 429 },
      });
    }
    delivered.add(connectionId);
  };
  const queue = new PushQueue(post, options, {
    gone: () => {},
    failed: (id, error) => {
      throw new Error(`push to ${id} failed: ${String(error)}`);
    },
  });
  const t0 = performance.now();
  const outcomes = await Promise.all(
    Array.from({ length: subscribers }, (_, i) => queue.push(`c${i}`, 'R#q', ['{"v":1}'])),
  );
  const seconds = (performance.now() - t0) / 1000;
  if (delivered.size !== subscribers || outcomes.some((o) => o !== 'sent')) {
    throw new Error(`fan-out: ${delivered.size} of ${subscribers} subscribers got the result`);
  }
  return { seconds, throttled: queue.throttledCalls };
}

/**
 * `actors` idle tallies whose records hold the one send their last turn made (drained, as
 * DynamoDB's store leaves them; written untimed and unmodelled), then one sweep of them all,
 * timed: by the sweeper with `lanes` groups at a time, or (`lanes` undefined) one actor after
 * the other, as the sweeper did before 2026-11-30. Checks that each was retired and its send
 * sent again once.
 */
export async function sweepTime(
  actors: number,
  lanes: number | undefined,
): Promise<{ seconds: number; counts: CallCounts }> {
  const backend = createEmbeddedBackend();
  for (let i = 0; i < actors; i++) {
    const id = Tally.ref(`idle${i}`).id;
    const to = Tally.ref(`peer${i}`).id;
    const envelope = {
      id: `${id}:1`,
      from: id,
      seq: 1,
      to,
      name: 'add',
      payload: { at: 0 },
      sentAt: 0,
    };
    const record = { id, ver: 1, state: { n: 1, at: 0 }, inboxOffset: '1', marks: {}, sentSeq: 1 };
    const outbox = [{ actorId: id, seq: 1, envelopes: [envelope], createdAt: 0 }];
    await backend.store.commit({
      expectedVer: 0,
      record: { ...record, outbox },
      outbox: [],
      idempotency: [],
    });
  }
  const counts: CallCounts = {};
  const store = modelledStore(backend.store, counts);
  const queue = modelledQueue(backend.queue, counts);
  const t0 = performance.now();
  let drained = actors;
  if (lanes === undefined) {
    for (const id of await store.listOutboxActors(Number.POSITIVE_INFINITY)) {
      await sweepOutboxOf(store, queue, id);
    }
  } else {
    const engine = { actors: [Tally], store, queue, logger: silentLogger };
    ({ drained } = await new Sweeper(engine, { minAgeMs: 0, concurrency: lanes }).sweep());
  }
  const seconds = (performance.now() - t0) / 1000;
  const held = await backend.store.listOutboxActors(Number.POSITIVE_INFINITY);
  if (drained !== actors || held.length > 0) {
    throw new Error(
      `a sweep retired ${drained} of ${actors} idle actors, ${held.length} still hold sends`,
    );
  }
  if (backend.queue.counts().total !== actors)
    throw new Error('a held send was not sent again once');
  backend.close();
  return { seconds, counts };
}
