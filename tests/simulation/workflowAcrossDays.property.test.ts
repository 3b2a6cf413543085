/**
 * Sagas across days: workflows whose actor messages the inbox strands in its dead-letter queue
 * while time jumps by days (`agingJump`), under the usual crash faults. Across such a jump an
 * ask may time out while its stranded call waits, and the call is applied later all the same;
 * an ask whose actor kept failing it is answered DEAD_LETTERED, and the run's operator then
 * redrives its letter with force, applying the call after the workflow was told it failed.
 * (A stranded call the desk keeps as too old to tell is not answered — it may have been applied
 * — so its run sees the reply of the operator's redrive, or ASK_TIMEOUT first.)
 * Neither is a fault: `docs/workflows.md` keeps the compensation of a call that failed with
 * ASK_TIMEOUT or DEAD_LETTERED, since it may have been applied or may be later, and runs it when
 * the saga unwinds. What must hold is what exactly-once promises:
 *
 * - every actor message a run issued (a call, a compensation's call) is applied exactly once,
 *   and nothing it did not issue is applied — told it failed or not;
 * - every instance ends, completed, failed with a documented code (its calls' ASK_TIMEOUT or
 *   DEAD_LETTERED, or its step's STEP_FAILED), or cancelled;
 * - every step's attempts carried the one key the journal's run and the step's name make;
 * - the books balance: a completed booking keeps its holds and its charge, an unwound one
 *   releases each hold it issued once and refunds its charge — whatever order a hold applied
 *   late and its release took. A release comes before its hold only when the run was told
 *   that hold's call failed (ASK_TIMEOUT or DEAD_LETTERED): a call answered with its reply was
 *   applied before the run went on.
 */
import {
  actor,
  ErrorCode,
  type JournalEntry,
  TerminalError,
  type WorkflowContext,
  type WorkflowState,
  workflow,
} from '@baton/core';
import type { Commit } from '@baton/core/adapter';
import { type SimPorts, Simulation, type SimulationStats } from '@baton/testing';
import { afterAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { Hotel, holding, hotel } from './hotel-model.ts';

const DAY = 24 * 60 * 60 * 1000;
/**
 * Marks outlive the sleeps, so the faults' own duplicates stay recognisable without a jump;
 * aging jumps then span 3.5 to 28 days: past the one-day ask timeout always, past a sender's
 * forgetting of an idle channel (7 days) or a receiver's pruning of its mark (14) often.
 */
const MARK_RETENTION_MS = 14 * DAY;
/** Strands with time jumps while they wait, and more of them than the other workflow files. */
const ACROSS_DAYS = { strand: 0.3, strandBudget: 6, agingJump: 0.05, agingJumpBudget: 3 } as const;
/** Deliveries of a failing message before the engine keeps it as a dead letter. */
const MAX_ATTEMPTS = 4;
const SEEDS = Number(process.env.BATON_SIM_WORKFLOW_DAYS_RUNS ?? 24);
/** The codes a booking's run may fail with: its calls' failures, or its last step's. */
const UNREPLIED: readonly string[] = [ErrorCode.ASK_TIMEOUT, ErrorCode.DEAD_LETTERED];
const FAILED_WITH: readonly string[] = [...UNREPLIED, ErrorCode.STEP_FAILED];

/** One application of a desk message, as the desk's state keeps it. */
interface Applied {
  op: 'hold' | 'release';
  what: string;
  /** The message's id: the same for every copy of it. */
  id: string;
  at: number;
}

/**
 * The holds the desk's engine kept as dead letters, by message id (seen in the commits): a flaky
 * hold fails until it was kept once — its asker answered DEAD_LETTERED — and applies once the
 * run's operator redrives it (with force, as its sender was answered).
 */
const keptHolds = new Set<string>();

/** The workers' ports, their store's commits watched for the desk's kept holds. */
const watchingLetters = (ports: SimPorts): SimPorts => ({
  ...ports,
  store: new Proxy(ports.store, {
    get(target, property, receiver) {
      if (property === 'commit') {
        // Seen as the commit is tried: a crash at its end would hide it, and the hold would
        // fail each redrive. If this commit fails, the hold just applies at its next delivery.
        return (commit: Commit) => {
          for (const letter of commit.deadLetters?.put ?? []) {
            if (letter.envelope.name === 'hold') keptHolds.add(letter.messageId);
          }
          return target.commit(commit);
        };
      }
      const value: unknown = Reflect.get(target, property, receiver);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  }),
});

/** A front desk that logs every hold and release it applied, with the message's id. */
const Desk = actor({
  name: 'desk',
  state: z.object({
    log: z.array(
      z.object({
        op: z.enum(['hold', 'release']),
        what: z.string(),
        id: z.string(),
        at: z.number(),
      }),
    ),
  }),
  initial: () => ({ log: [] as Applied[] }),
  handlers: {
    hold: {
      payload: z.object({ what: z.string(), flaky: z.boolean() }),
      handle: (ctx, { what, flaky }) => {
        // A flaky hold fails until the engine keeps it as a dead letter (its asker is answered
        // DEAD_LETTERED); the run's operator redrives it, and then it applies.
        if (flaky && !keptHolds.has(ctx.message.id)) throw new Error('the desk is busy');
        ctx.state.log.push({ op: 'hold', what, id: ctx.message.id, at: ctx.now() });
        return what;
      },
    },
    release: {
      payload: z.object({ what: z.string() }),
      handle: (ctx, { what }) => {
        ctx.state.log.push({ op: 'release', what, id: ctx.message.id, at: ctx.now() });
      },
    },
  },
});
const desk = Desk.ref('front');

/** A card gateway: one charge per key; refunds by the charge's key, once per refund key. */
const charges = new Map<string, string>();
const refunds = new Map<string, Set<string>>();
/** Per trip and step (`quote`, `charge`, `confirm`, `refund`), the keys its attempts carried. */
const stepKeys = new Map<string, Set<string>>();
const noteKey = (trip: string, step: string, key: string) => {
  const at = `${trip}:${step}`;
  stepKeys.set(at, (stepKeys.get(at) ?? new Set()).add(key));
};
/** Called as a step of a trip runs. */
let onStep: (trip: string, step: string) => void = () => {};

/** The charge, refunded by its key when the saga unwinds (the refund's first attempt fails). */
const charging = (ctx: WorkflowContext, trip: string) =>
  ctx.step(
    'charge',
    ({ key }) => {
      noteKey(trip, 'charge', key);
      onStep(trip, 'charge');
      if (!charges.has(key)) charges.set(key, trip);
      return key;
    },
    {
      retry: { maxAttempts: 3, initialDelayMs: 1_000 },
      compensate: (_, { stepKey, key, attempt }) => {
        noteKey(trip, 'refund', key);
        if (attempt === 1) throw new Error('gateway busy');
        if (charges.has(stepKey))
          refunds.set(stepKey, (refunds.get(stepKey) ?? new Set()).add(key));
      },
    },
  );

/**
 * A voyage: quotes, holds a room at the desk (an ask, released by the saga), charges, sleeps a
 * day, holds a hotel room (`holding`), and confirms — a step that refuses the trips set to fail.
 * A call's failure is not caught: the run fails, and the saga undoes what it did.
 */
const Voyage = workflow({
  name: 'voyage',
  retentionMs: Number.POSITIVE_INFINITY,
  compensationRetry: { maxAttempts: 3, initialDelayMs: 1_000 },
  input: z.object({ trip: z.string(), fail: z.boolean(), flaky: z.boolean() }),
  run: async (ctx, { trip, fail, flaky }) => {
    const quote = await ctx.step('quote', ({ key }) => {
      noteKey(trip, 'quote', key);
      onStep(trip, 'quote');
      return `q-${trip}`;
    });
    await ctx.call(
      desk,
      'hold',
      { what: trip, flaky },
      { compensate: (_, saga) => saga.call(desk, 'release', { what: trip }) },
    );
    await charging(ctx, trip);
    await ctx.sleep(DAY);
    await holding(ctx, `${trip}-h`);
    await ctx.step('confirm', ({ key }) => {
      noteKey(trip, 'confirm', key);
      onStep(trip, 'confirm');
      if (fail) throw new TerminalError('no room after all');
    });
    return quote;
  },
});

/** The trips of each run: which fail at the end, whose desk hold is flaky, which are cancelled. */
const TRIPS = [
  { trip: 't1', fail: false, flaky: false },
  { trip: 't2', fail: true, flaky: false },
  { trip: 't3', fail: false, flaky: true },
  { trip: 't4', fail: false, flaky: false, cancelAt: 'charge' },
  { trip: 't5', fail: false, flaky: false },
  { trip: 't6', fail: true, flaky: false },
  { trip: 't7', fail: false, flaky: false, cancelAt: 'quote' },
  { trip: 't8', fail: false, flaky: false },
];

/** Whether a call's entry failed in a way that leaves its message to be applied yet. */
const unreplied = (entry: JournalEntry | undefined): boolean =>
  entry?.state === 'failed' && UNREPLIED.includes(entry.error?.code ?? '');

describe('sagas across days in the simulation', () => {
  /** Over all seeds: how the runs ended, and how often each fault and path came. */
  const ends = new Map<string, number>();
  const seen = {
    /** Desk holds whose ask timed out while a jump passed (the call issued days before). */
    asksTimedOutAcrossJump: 0,
    asksTimedOut: 0,
    asksDeadLettered: 0,
    /** Holds the desk applied after the run was told their call failed. */
    appliedLate: 0,
    /** Releases the desk applied before the hold they undo. */
    releasedFirst: 0,
    /** Compensations whose own call failed unreplied, and applied all the same. */
    compensationsUnreplied: 0,
  };
  const totals: Partial<Record<keyof SimulationStats, number>> = {};
  /** Seeds run (a `-t` filter may run fewer than {@link SEEDS}). */
  let runs = 0;
  afterAll(() => {
    const lines = Object.entries({ ...totals, ...seen, ...Object.fromEntries(ends) });
    console.log(`over ${SEEDS} seeds: ${lines.map(([k, v]) => `${k} ${v}`).join(', ')}`);
    if (runs < 24) return;
    // The new paths were taken: time jumped while messages were stranded, asks timed out across
    // a jump, the desk dead-lettered asks that a forced redrive applied, holds came late.
    expect(totals.agingJumps).toBeGreaterThan(0);
    expect(totals.strandedAcrossJumps).toBeGreaterThan(0);
    expect(totals.forcedRedrives).toBeGreaterThan(0);
    expect(seen.asksTimedOutAcrossJump).toBeGreaterThan(0);
    expect(seen.asksDeadLettered).toBeGreaterThan(0);
    expect(seen.appliedLate).toBeGreaterThan(0);
    expect(seen.releasedFirst).toBeGreaterThan(0);
    expect(seen.compensationsUnreplied).toBeGreaterThan(0);
    for (const end of ['completed', 'failed ASK_TIMEOUT', 'failed DEAD_LETTERED']) {
      expect(ends.get(end) ?? 0, end).toBeGreaterThan(0);
    }
    for (const end of ['failed STEP_FAILED', 'cancelled CANCELLED']) {
      expect(ends.get(end) ?? 0, end).toBeGreaterThan(0);
    }
  });

  it.each(Array.from({ length: SEEDS }, (_, i) => i + 1))(
    'applies every call once and balances the books across days (seed %i)',
    async (seed) => {
      charges.clear();
      refunds.clear();
      stepKeys.clear();
      keptHolds.clear();
      const sim = new Simulation({
        actors: [Desk, Hotel],
        workflows: [Voyage],
        seed,
        processes: 1 + (seed % 3),
        markRetentionMs: MARK_RETENTION_MS,
        maxAttempts: MAX_ATTEMPTS,
        faults: ACROSS_DAYS,
        wrapPorts: watchingLetters,
      });
      for (const { trip, fail, flaky } of TRIPS) {
        sim.send(Voyage.ref(trip), 'start', { input: { trip, fail, flaky } });
      }
      // A cancel sent as a step runs (at least once: maybe twice).
      onStep = (trip, step) => {
        const cancelAt = TRIPS.find((t) => t.trip === trip)?.cancelAt;
        if (cancelAt === step) sim.send(Voyage.ref(trip), 'cancel', { reason: 'changed plans' });
      };
      const stats = await sim.run();
      runs++;
      for (const [name, value] of Object.entries(stats)) {
        const key = name as keyof SimulationStats;
        if (typeof value === 'number') totals[key] = (totals[key] ?? 0) + value;
      }
      try {
        await check(sim, seed, stats);
      } catch (error) {
        if (process.env.BATON_SIM_LOG) {
          console.log(`seed ${seed}, last steps:\n  ${sim.trace.join('\n  ')}`);
        }
        throw error;
      }
    },
  );

  async function check(sim: Simulation, seed: number, stats: SimulationStats): Promise<void> {
    let answeredDeadLettered = 0;
    const { log } = await sim.state(desk);
    const { held, released } = await sim.state(hotel);
    // No message applied twice: each id once in the desk's log.
    const ids = log.map((a) => a.id);
    expect(new Set(ids).size, `desk message ids in seed ${seed}`).toBe(ids.length);
    const kept = (trip: string) =>
      [...charges].filter(([key, of]) => of === trip && !refunds.has(key)).length;
    for (const { trip, fail, cancelAt } of TRIPS) {
      const at = `${trip} in seed ${seed}`;
      const ref = Voyage.ref(trip);
      const state = (await sim.state(ref)) as unknown as WorkflowState;
      const { status, error } = state;
      const why = `${at}: ${status} ${JSON.stringify(error)}`;
      const run = state.journal.filter((e) => !e.saga);
      const saga = state.journal.filter((e) => e.saga);
      const call = run.find((e) => e.kind === 'call' && e.name === 'desk.hold');
      const hotelCall = run.find((e) => e.kind === 'call' && e.name === 'hotel.hold');
      const failedCalls = [call, hotelCall].flatMap((e) => (e && unreplied(e) ? [e] : []));
      answeredDeadLettered += state.journal.filter(
        (e) => e.kind === 'call' && e.error?.code === ErrorCode.DEAD_LETTERED,
      ).length;

      // It ended, in a documented way.
      expect(['completed', 'failed', 'cancelled'], why).toContain(status);
      const end = `${status} ${error?.code ?? ''}`.trim();
      ends.set(end, (ends.get(end) ?? 0) + 1);
      expect(state.ending, why).toBeUndefined();
      if (status === 'completed') {
        expect(state.output, why).toBe(`q-${trip}`);
        expect(fail, why).toBe(false);
        expect([call?.state, call?.value, hotelCall?.state], why).toEqual(['done', trip, 'done']);
      } else if (status === 'cancelled') {
        expect(cancelAt, why).toBeDefined();
        expect(error?.code, why).toBe(ErrorCode.CANCELLED);
      } else {
        expect(FAILED_WITH, why).toContain(error?.code);
        // Failed by its calls' answer — one the run was told, as its journal shows — or by the
        // confirmation of a trip set to fail.
        if (error?.code === ErrorCode.STEP_FAILED) expect(fail, why).toBe(true);
        else
          expect(
            failedCalls.map((e) => e.error?.code),
            why,
          ).toContain(error?.code);
      }
      // A trip neither set to fail nor cancelled completes unless a call of it was unreplied.
      if (!fail && cancelAt === undefined && failedCalls.length === 0) {
        expect(status, why).toBe('completed');
      }
      // Compensations that failed for good failed unreplied: their calls are applied later.
      const compensationErrors = (error?.details?.compensationErrors ?? []) as Array<{
        code?: string;
      }>;
      for (const failed of compensationErrors) expect(UNREPLIED, why).toContain(failed.code);

      // Each step ran with the one key its run and its name make, and is journaled once.
      for (const step of ['quote', 'charge', 'confirm']) {
        const entries = run.filter((e) => e.kind === 'step' && e.name === step);
        expect(entries.length, `${step} of ${why}`).toBeLessThanOrEqual(1);
        const keys = stepKeys.get(`${trip}:${step}`) ?? new Set();
        if (entries[0]?.state === 'done') expect(keys.size, `${step} of ${why}`).toBe(1);
        expect([...keys], `${step} keys of ${why}`).toEqual(
          keys.size === 0 ? [] : [`${ref.id}:${state.runId}:${step}:0`],
        );
      }
      expect(
        stepKeys.get(`${trip}:refund`)?.size ?? 0,
        `refund keys of ${why}`,
      ).toBeLessThanOrEqual(1);

      // The desk: the hold applied once if the run issued it (told it failed or not), never
      // otherwise; released once if the run did not complete.
      const done = status === 'completed';
      const holds = log.filter((a) => a.op === 'hold' && a.what === trip);
      const releases = log.filter((a) => a.op === 'release' && a.what === trip);
      expect(holds.length, `desk holds of ${why}`).toBe(call ? 1 : 0);
      expect(releases.length, `desk releases of ${why}`).toBe(done || !call ? 0 : 1);
      const sagaReleases = saga.filter((e) => e.kind === 'call' && e.name === 'desk.release');
      expect(sagaReleases.length, `saga releases of ${why}`).toBe(releases.length);
      if (sagaReleases.some(unreplied)) seen.compensationsUnreplied++;
      const hold = holds[0];
      const release = releases[0];
      if (call && hold) {
        if (unreplied(call)) {
          if (call.error?.code === ErrorCode.ASK_TIMEOUT) {
            seen.asksTimedOut++;
            // Issued, then a jump (at least a quarter of the mark retention) before the timeout.
            if ((call.endedAt ?? 0) - call.at >= MARK_RETENTION_MS / 4)
              seen.asksTimedOutAcrossJump++;
          } else {
            seen.asksDeadLettered++;
            // Answered DEAD_LETTERED: the desk kept a letter of it (never one too old to tell,
            // whose asker is not answered), which a forced redrive applied.
            expect(keptHolds.has(hold.id), why).toBe(true);
          }
          if (hold.at > (call.endedAt ?? Number.POSITIVE_INFINITY)) seen.appliedLate++;
        } else {
          // Answered with its reply: applied before the run went on.
          expect(call.state, why).toBe('done');
          expect(hold.at, why).toBeLessThanOrEqual(call.endedAt ?? 0);
        }
      }
      if (hold && release) {
        const holdFirst = log.indexOf(hold) < log.indexOf(release);
        if (!holdFirst) seen.releasedFirst++;
        // A release comes before its hold only when the run was told the hold's call failed.
        if (!unreplied(call)) expect(holdFirst, `desk order of ${why}`).toBe(true);
      }

      // The hotel: the same books, by count.
      const what = `${trip}-h`;
      expect(held[what] ?? 0, `hotel holds of ${why}`).toBe(hotelCall ? 1 : 0);
      expect(released[what] ?? 0, `hotel releases of ${why}`).toBe(done || !hotelCall ? 0 : 1);

      // The charge: kept by a completed trip, refunded (under one key) otherwise.
      expect(kept(trip), `charge of ${why}`).toBe(done ? 1 : 0);
      if (done) {
        const sleep = run.find((e) => e.kind === 'sleep');
        expect(sleep?.state, why).toBe('done');
        expect((sleep?.endedAt ?? 0) - (sleep?.at ?? 0), why).toBeGreaterThanOrEqual(DAY);
      }
    }
    for (const keys of refunds.values()) expect(keys.size, `refund keys in seed ${seed}`).toBe(1);
    // A message applied after its asker was told DEAD_LETTERED was redriven with force: as many
    // forced redrives at least as calls so told (each applied once, as checked above).
    expect(answeredDeadLettered, `calls told DEAD_LETTERED in seed ${seed}`).toBeLessThanOrEqual(
      stats.forcedRedrives,
    );
    // Nothing applied but what the runs issued: every desk entry is a trip's.
    const trips = new Set(TRIPS.map((t) => t.trip));
    for (const applied of log) expect(trips.has(applied.what), applied.what).toBe(true);
  }
});
