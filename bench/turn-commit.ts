/**
 * Turn commit overhead (DESIGN "Budgets": ≤ 1.10x).
 *
 * Candidate: `runTurn` committing a turn of one ingress message whose handler changes the state
 * and sends one message — one commit of the actor record (holding the send) and the message's
 * outcome, appended to the actor's outcome page. The engine's record cache is warm and the turn
 * before drained (a busy worker's steady state), so no load and no send. The messages share one
 * `sentAt` (a backlog sent at once), so each may be a copy of one in a closed page and is looked
 * up there.
 *
 * Baseline: `store.commit` of the same two items, built by hand from a record kept in a
 * local variable: what the commit costs with no engine around it.
 */
import { actor, silentLogger } from '@baton/core';
import {
  type ActorRecord,
  type Commit,
  type Envelope,
  INGRESS,
  jsonSize,
  type PagedOutcome,
  type Store,
} from '@baton/core/adapter';
import {
  createEngine,
  type Inbound,
  PAGE_BYTES,
  runTurn,
  type TurnResult,
} from '@baton/core/engine';
import { createEmbeddedBackend } from '@baton/embedded';
import * as z from 'zod';
import { formatNs, interleave, median, quartiles, type Sample, timeNs } from './measure.ts';
import { instrument, overlay } from './ports.ts';
import type { Row } from './report.ts';

const DAY = 24 * 60 * 60 * 1000;

const Ledger = actor({
  name: 'ledger',
  state: z.object({ entries: z.number().int() }),
  initial: () => ({ entries: 0 }),
  handlers: {
    record: {
      payload: z.object({ from: z.string(), amount: z.number().int() }),
      handle: (ctx) => {
        ctx.state.entries++;
      },
    },
  },
});

const Account = actor({
  name: 'account',
  state: z.object({ balance: z.number().int(), deposits: z.number().int() }),
  initial: () => ({ balance: 0, deposits: 0 }),
  handlers: {
    deposit: {
      payload: z.object({ amount: z.number().int().positive() }),
      handle: (ctx, { amount }) => {
        ctx.state.balance += amount;
        ctx.state.deposits++;
        ctx.send(Ledger.ref('main'), 'record', { from: ctx.self.key, amount });
        return ctx.state.balance;
      },
    },
  },
});

const ACTOR = Account.ref('alice').id;
const LEDGER = Ledger.ref('main').id;
/** The hand-built record's life id: as long as the engine's. */
const LIFE = 'base00000000';

export interface TurnCommitOptions {
  /** Turns per round. */
  readonly ops: number;
  readonly rounds: number;
  readonly warmup: number;
  /** Modelled round trip per store call; 0 for the plain embedded backend. */
  readonly latencyNs: number;
  readonly log: (line: string) => void;
}

export async function turnCommit(options: TurnCommitOptions): Promise<Row> {
  const { ops, latencyNs, log } = options;
  if (latencyNs === 0) await checkSameItems(log);
  const result = await interleave({
    baseline: () => baselineRound(ops, latencyNs),
    candidate: () => candidateRound(ops, latencyNs),
    rounds: options.rounds,
    warmup: options.warmup,
  });
  const baseline = median(result.baseline);
  const candidate = median(result.candidate);
  log(
    `  raw store.commit ${formatNs(baseline)}/op, runTurn ${formatNs(candidate)}/op ` +
      `(${ops} turns × ${options.rounds} rounds per side); engine adds ${formatNs(candidate - baseline)}/turn`,
  );
  return {
    bench:
      latencyNs > 0
        ? `turn commit overhead (modelled ${formatNs(latencyNs)}/call)`
        : 'turn commit overhead',
    baseline: `${baseline.toFixed(0)} ns/op`,
    candidate: `${candidate.toFixed(0)} ns/op`,
    values: { baseline: baseline / 1000, candidate: candidate / 1000, unit: 'µs/turn' },
    ratio: median(result.paired),
    spread: quartiles(result.paired),
    // No budget: DESIGN's (≤ 1.10x) is measured on the emulators (1a). In memory, with no I/O,
    // the ratio is the engine's CPU over a bare commit: a figure to read.
  };
}

function inbound(i: number, now: number): Inbound {
  const envelope: Envelope = {
    id: `deposit-${i}`,
    from: INGRESS,
    seq: 0,
    to: ACTOR,
    name: 'deposit',
    payload: { amount: 1 },
    sentAt: now,
  };
  return { envelope, queueSeq: String(i) };
}

async function candidateRound(ops: number, latencyNs: number): Promise<Sample> {
  const backend = createEmbeddedBackend();
  const ports = instrument(backend.store, backend.queue, latencyNs);
  const engine = createEngine({
    actors: [Account, Ledger],
    store: latencyNs > 0 ? ports.store : backend.store,
    queue: backend.queue,
    logger: silentLogger,
  });
  // Inputs are built before the clock starts: in a worker they come decoded from the queue.
  const now = Date.now();
  const batches = Array.from({ length: ops }, (_, i) => [inbound(i + 1, now)]);
  const ns = await timeNs(async () => {
    let drainedAt: TurnResult | undefined;
    for (const batch of batches) {
      drainedAt = await runTurn(engine, ACTOR, batch, drainedAt ? { drainedAt } : {});
    }
  });
  const record = await backend.store.load(ACTOR);
  const state = record?.state as { deposits: number } | undefined;
  if (state?.deposits !== ops || record?.outbox?.length !== 1) {
    throw new Error(
      `turn commit: expected ${ops} deposits and the last send held, got ${state?.deposits}`,
    );
  }
  backend.close();
  return { ns, ops };
}

async function baselineRound(ops: number, latencyNs: number): Promise<Sample> {
  const backend = createEmbeddedBackend();
  const store =
    latencyNs > 0 ? instrument(backend.store, backend.queue, latencyNs).store : backend.store;
  const ns = await timeNs(async () => {
    let record: ActorRecord = initialRecord();
    for (let i = 1; i <= ops; i++) {
      const commit = handBuilt(record, i, Date.now());
      await store.commit(commit);
      record = commit.record;
    }
  });
  const stored = await backend.store.load(ACTOR);
  if (stored?.ver !== ops || stored.outbox?.length !== 1) {
    throw new Error('turn commit baseline lost commits');
  }
  backend.close();
  return { ns, ops };
}

function initialRecord(): ActorRecord {
  return {
    id: ACTOR,
    ver: 0,
    state: { balance: 0, deposits: 0 },
    inboxOffset: '0',
    marks: {},
    sentSeq: 0,
  };
}

/** What the engine commits for deposit `i`, written out by hand. */
function handBuilt(previous: ActorRecord, i: number, now: number): Commit {
  const state = previous.state as { balance: number; deposits: number };
  const seq = previous.sentSeq + 1;
  const envelope: Envelope = {
    id: `${ACTOR}:${LIFE}.${seq}`,
    from: ACTOR,
    seq,
    prev: seq - 1,
    to: LEDGER,
    name: 'record',
    payload: { from: 'alice', amount: 1 },
    sentAt: now,
  };
  const outcome: PagedOutcome = {
    key: `deposit-${i}`,
    actorId: ACTOR,
    outcome: { ok: true, value: state.balance + 1 },
    expiresAt: now + 14 * DAY,
    sentAt: now,
  };
  // The outcome page: appended to until it holds PAGE_BYTES, then the next one begins.
  const page = previous.outcomePage ?? { page: 0, bytes: 0 };
  const bytes = page.bytes + jsonSize(outcome);
  const outcomePage =
    bytes < PAGE_BYTES
      ? { page: page.page, bytes, sentAt: now, ...closed(page) }
      : { page: page.page + 1, bytes: 0, closedSentAt: now };
  const record: ActorRecord = {
    id: ACTOR,
    ver: previous.ver + 1,
    life: LIFE,
    state: { balance: state.balance + 1, deposits: state.deposits + 1 },
    stateVersion: 1,
    inboxOffset: String(i),
    marks: {},
    sentSeq: seq,
    channels: { [LEDGER]: { seq, at: now } },
    outbox: [{ actorId: ACTOR, seq, envelopes: [envelope], createdAt: now }],
    format: 2,
    outcomePage,
  };
  return {
    expectedVer: previous.ver,
    record,
    outbox: [],
    idempotency: [],
    outcomes: { page: page.page, sentAt: now, records: [outcome] },
  };
}

function closed(page: { closedSentAt?: number }): { closedSentAt?: number } {
  return page.closedSentAt === undefined ? {} : { closedSentAt: page.closedSentAt };
}

/** Makes sure the baseline commits what the engine commits: same items, about the same bytes. */
async function checkSameItems(log: (line: string) => void): Promise<void> {
  const seen: Commit[] = [];
  const backend = createEmbeddedBackend();
  const store = backend.store;
  const recording = overlay<Store>(store, {
    commit: (commit) => {
      seen.push(commit);
      return store.commit(commit);
    },
  });
  const engine = createEngine({
    actors: [Account, Ledger],
    store: recording,
    queue: backend.queue,
    logger: silentLogger,
  });
  const now = Date.now();
  await runTurn(engine, ACTOR, [inbound(1, now)]);
  backend.close();
  const engineCommit = seen[0];
  if (!engineCommit || seen.length !== 1) throw new Error('turn commit: expected one commit');
  const a = shape(engineCommit);
  const b = shape(handBuilt(initialRecord(), 1, now));
  log(`  commit shape: engine ${a}; hand-built ${b}${a === b ? '' : '  (MISMATCH)'}`);
}

function shape(commit: Commit): string {
  const items: unknown[] = [commit.record, ...commit.outbox, ...commit.idempotency];
  if (commit.outcomes) items.push(commit.outcomes);
  const bytes = items.reduce((n: number, item) => n + jsonSize(item), 0);
  return `${items.length} items, ${bytes} bytes`;
}
