import { ErrorCode } from '@baton/core';
import { Simulation } from '@baton/testing';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Account, INITIAL_BALANCE } from './bank-model.ts';

const RUNS = Number(process.env.BATON_SIM_RUNS ?? 2000);
/** Replays a failure: set both to the values fast-check printed. */
const REPLAY = process.env.BATON_FC_SEED
  ? { seed: Number(process.env.BATON_FC_SEED), path: process.env.BATON_FC_PATH }
  : {};

const workload = fc.record({
  seed: fc.integer({ min: 0, max: 2 ** 31 - 1 }),
  accounts: fc.integer({ min: 2, max: 4 }),
  transfers: fc.array(
    fc.record({ from: fc.nat(3), to: fc.nat(3), amount: fc.integer({ min: 1, max: 90 }) }),
    { minLength: 1, maxLength: 8 },
  ),
  processes: fc.integer({ min: 1, max: 3 }),
  batchSize: fc.integer({ min: 1, max: 10 }),
  crash: fc.double({ min: 0, max: 0.3, noNaN: true }),
  timeout: fc.double({ min: 0, max: 0.03, noNaN: true }),
  restart: fc.constantFrom(0, 0.002, 0.01),
});

const totals = {
  runs: 0,
  transfers: 0,
  crashes: 0,
  restarts: 0,
  timeouts: 0,
  versionConflicts: 0,
  redeliveries: 0,
  duplicates: 0,
  crashesAt: {} as Record<string, number>,
};

describe('the bank under crash-injection simulation', () => {
  it(`conserves money and applies every transfer exactly once, in FIFO order, over ${RUNS} schedules`, async () => {
    await fc.assert(
      fc.asyncProperty(workload, async (w) => {
        const sim = new Simulation({
          actors: [Account],
          seed: w.seed,
          processes: w.processes,
          batchSize: w.batchSize,
          faults: { crash: w.crash, timeout: w.timeout, restart: w.restart },
        });
        const names = Array.from({ length: w.accounts }, (_, i) => `a${i}`);
        const transfers = w.transfers.map((t, i) => ({
          id: `t${i}`,
          from: names[t.from % w.accounts]!,
          to: names[t.to % w.accounts]!,
          amount: t.amount,
        }));
        for (const t of transfers) {
          sim.send(
            Account.ref(t.from),
            'transfer',
            { id: t.id, to: t.to, amount: t.amount },
            { idempotencyKey: t.id },
          );
        }
        const stats = await sim.run();

        const states = await Promise.all(names.map((name) => sim.state(Account.ref(name))));
        // Money is conserved: nothing created, nothing lost.
        expect(states.reduce((sum, s) => sum + s.balance, 0)).toBe(INITIAL_BALANCE * w.accounts);
        // Per-channel FIFO (I3).
        expect(states.flatMap((s) => s.fifoBreaks)).toEqual([]);
        // Every transfer applied exactly once (I1): count each effect.
        const effects = new Map<string, number>();
        for (const s of states) for (const e of s.log) effects.set(e, (effects.get(e) ?? 0) + 1);
        for (const t of transfers) {
          const count = (effect: string) => effects.get(`${t.id}:${effect}`) ?? 0;
          const outcome = await sim.outcome(t.id);
          expect(outcome, `${t.id} has an outcome`).toBeDefined();
          if (outcome?.ok) {
            expect(count('withdraw')).toBe(1);
            expect(count('deposit') + count('refuse')).toBe(1);
            expect(count('refund')).toBe(count('refuse'));
          } else {
            expect(outcome?.error.code).toBe(ErrorCode.REJECTED);
            expect(count('withdraw') + count('deposit') + count('refuse') + count('refund')).toBe(
              0,
            );
          }
        }
        expect([...effects.values()].every((n) => n === 1)).toBe(true);
        // Nothing left behind.
        expect(sim.backend.store.outboxSize()).toBe(0);
        expect(sim.backend.queue.counts().total).toBe(0);
        expect(sim.backend.queue.counts().deadLetters).toBe(0);

        totals.runs++;
        totals.crashes += stats.crashes;
        totals.restarts += stats.restarts;
        totals.timeouts += stats.timeouts;
        totals.redeliveries += stats.redeliveries;
        totals.duplicates += stats.duplicateIngress;
        totals.versionConflicts += stats.versionConflicts;
        for (const [at, n] of Object.entries(stats.crashesAt)) {
          totals.crashesAt[at] = (totals.crashesAt[at] ?? 0) + n;
        }
        totals.transfers += transfers.length;
      }),
      { numRuns: RUNS, ...REPLAY },
    );
    console.log(`simulation totals: ${JSON.stringify(totals)}`);
    expect(totals.runs).toBe(RUNS);
    if (RUNS >= 1000) {
      // The schedules struck every I/O boundary of a turn, and raced workers on one actor.
      for (const boundary of ['store.commit', 'store.commit:done', 'queue.send', 'queue.ack']) {
        expect(totals.crashesAt[boundary], `crashes at ${boundary}`).toBeGreaterThan(0);
      }
      expect(totals.versionConflicts).toBeGreaterThan(0);
    }
  });
});
