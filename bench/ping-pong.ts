/**
 * Actor→actor ping-pong (DESIGN "Budgets": ≤ 1.2x).
 *
 * Two actors bounce a ball K round trips (2K + 1 hops, counting the serve from ingress).
 * Candidate: the engine — one Worker polling the embedded inbox; each hop is a receive, a turn
 * (handler, commit of record + outbox), the drain into the other actor's inbox, and the ack.
 * Baseline: a hand-written at-least-once pipeline on the same store and queue — per hop a
 * receive, a `store.commit` of the new state record (no outbox, no idempotency, no engine),
 * a `queue.send` of the next message, and the ack.
 */
import { actor, silentLogger } from '@baton/core';
import {
  type ActorRecord,
  type Envelope,
  encodeEnvelope,
  INGRESS,
  type Queue,
  type Store,
} from '@baton/core/adapter';
import { Worker } from '@baton/core/engine';
import { createEmbeddedBackend } from '@baton/embedded';
import * as z from 'zod';
import { formatNs, interleave, median, type Sample, timeNs } from './measure.ts';
import { type CallCounts, formatCalls, instrument } from './ports.ts';
import { pairedFigures, type Row } from './report.ts';

const Player = actor({
  name: 'player',
  state: z.object({ hits: z.number().int() }),
  initial: () => ({ hits: 0 }),
  handlers: {
    ball: {
      payload: z.object({ n: z.number().int(), last: z.number().int() }),
      handle: (ctx, { n, last }) => {
        ctx.state.hits++;
        if (n < last) ctx.send(Player.ref(other(ctx.self.key)), 'ball', { n: n + 1, last });
      },
    },
  },
});

const A = Player.ref('a').id;
const B = Player.ref('b').id;

function other(key: string): string {
  return key === 'a' ? 'b' : 'a';
}

export interface PingPongOptions {
  /** Round trips per round. */
  readonly roundTrips: number;
  readonly rounds: number;
  readonly warmup: number;
  /** Modelled round trip per store/queue call; 0 for the plain embedded backend. */
  readonly latencyNs: number;
  readonly log: (line: string) => void;
}

export async function pingPong(options: PingPongOptions): Promise<Row> {
  const { roundTrips, latencyNs, log } = options;
  const hops = 2 * roundTrips + 1;
  const label =
    latencyNs > 0
      ? `actor→actor ping-pong (modelled ${formatNs(latencyNs)}/call)`
      : 'actor→actor ping-pong';
  const result = await interleave({
    baseline: () => handWrittenRound(roundTrips, latencyNs),
    candidate: () => engineRound(roundTrips, latencyNs),
    rounds: options.rounds,
    warmup: options.warmup,
  });
  const baseline = median(result.baseline);
  const candidate = median(result.candidate);
  log(
    `  hand-written ${formatNs(baseline)}/hop, engine ${formatNs(candidate)}/hop ` +
      `(${roundTrips} round trips = ${hops} hops × ${options.rounds} rounds per side)`,
  );
  if (latencyNs === 0) {
    const engine = await engineRound(roundTrips, 0, true);
    const hand = await handWrittenRound(roundTrips, 0, true);
    log(`  engine calls per hop: ${formatCalls(engine.calls, hops)}`);
    log(`  hand-written calls per hop: ${formatCalls(hand.calls, hops)}`);
  }
  return {
    bench: label,
    baseline: `${formatNs(baseline)}/hop`,
    candidate: `${formatNs(candidate)}/hop`,
    ...pairedFigures(result.paired, candidate / baseline),
    // No budget: DESIGN's (≤ 1.2x) is measured on the emulators (3a). In memory the baseline
    // is a bare loop with no I/O: a figure to read.
  };
}

/** A round's sample, with the store and queue calls it made when they were counted. */
interface Counted extends Sample {
  readonly calls: CallCounts;
}

function serve(last: number): Envelope {
  return {
    id: `serve-${last}`,
    from: INGRESS,
    seq: 0,
    to: A,
    name: 'ball',
    payload: { n: 0, last },
    sentAt: Date.now(),
  };
}

async function engineRound(roundTrips: number, latencyNs: number, count = false): Promise<Counted> {
  const backend = createEmbeddedBackend();
  const ports = instrument(backend.store, backend.queue, latencyNs);
  const wrapped = latencyNs > 0 || count;
  const store = wrapped ? ports.store : backend.store;
  const queue = wrapped ? ports.queue : backend.queue;
  const worker = new Worker({ actors: [Player], store, queue, logger: silentLogger });
  const last = 2 * roundTrips;
  const ns = await timeNs(async () => {
    const envelope = serve(last);
    await queue.send([{ group: A, dedupeId: envelope.id, body: encodeEnvelope(envelope) }]);
    while ((await worker.poll()) > 0) {}
  });
  await check(backend.store, last + 1);
  backend.close();
  return { ns, ops: last + 1, calls: ports.calls };
}

interface Ball {
  readonly to: string;
  readonly n: number;
  readonly last: number;
}

async function handWrittenRound(
  roundTrips: number,
  latencyNs: number,
  count = false,
): Promise<Counted> {
  const backend = createEmbeddedBackend();
  const ports = instrument(backend.store, backend.queue, latencyNs);
  const wrapped = latencyNs > 0 || count;
  const store = wrapped ? ports.store : backend.store;
  const queue = wrapped ? ports.queue : backend.queue;
  const last = 2 * roundTrips;
  const ns = await timeNs(async () => {
    await handWritten(store, queue, last);
  });
  await check(backend.store, last + 1);
  backend.close();
  return { ns, ops: last + 1, calls: ports.calls };
}

/** Receive → commit state → send the next ball → ack: at-least-once, no dedupe, no outbox. */
async function handWritten(store: Store, queue: Queue, last: number): Promise<void> {
  const records = new Map<string, ActorRecord>();
  const ball: Ball = { to: A, n: 0, last };
  await queue.send([{ group: A, dedupeId: `serve-${last}`, body: JSON.stringify(ball) }]);
  for (;;) {
    const received = await queue.receive({ max: 10, visibilityTimeoutMs: 30_000 });
    if (received.length === 0) return;
    for (const message of received) {
      const { to, n } = JSON.parse(message.body) as Ball;
      const previous = records.get(to) ?? {
        id: to,
        ver: 0,
        state: { hits: 0 },
        inboxOffset: '0',
        marks: {},
        sentSeq: 0,
      };
      const record: ActorRecord = {
        ...previous,
        ver: previous.ver + 1,
        state: { hits: (previous.state as { hits: number }).hits + 1 },
        inboxOffset: message.seq,
      };
      await store.commit({ expectedVer: previous.ver, record, outbox: [], idempotency: [] });
      records.set(to, record);
      if (n < last) {
        const next: Ball = { to: to === A ? B : A, n: n + 1, last };
        await queue.send([
          { group: next.to, dedupeId: `${to}:${n + 1}`, body: JSON.stringify(next) },
        ]);
      }
      await queue.ack([message.receipt]);
    }
  }
}

async function check(store: Store, hops: number): Promise<void> {
  let hits = 0;
  for (const id of [A, B]) {
    const state = (await store.load(id))?.state as { hits: number } | undefined;
    hits += state?.hits ?? 0;
  }
  if (hits !== hops) throw new Error(`ping-pong: expected ${hops} hits, got ${hits}`);
}
