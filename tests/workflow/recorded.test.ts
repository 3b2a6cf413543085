/**
 * `ctx.now()`, `ctx.random()` and `ctx.uuid()` are recorded: a run that branches on them replays
 * the values it saw first — on every later message, across a day's sleep, and on a cold worker
 * (new code, engine and worker on the same backend) — so it issues the same commands again and
 * ends with the values it started with. Read before a step, they are committed before it runs,
 * so a step redone after a crash is the same step.
 */
import { type WorkflowContext, type WorkflowState, workflow } from '@baton/core';
import { Simulation } from '@baton/testing';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { type WorkflowHarness, workflowHarness } from './harness.ts';

const DAY = 24 * 60 * 60 * 1000;

/** What the first run saw, as its `seen` step reports it (steps run once here, no faults). */
const seen = new Map<string, Array<{ at: number; coin: number; id: string }>>();

const Draw = workflow({
  name: 'draw',
  input: z.object({}),
  run: async (ctx) => {
    const at = ctx.now();
    const coin = ctx.random();
    const id = ctx.uuid();
    await ctx.step('seen', () => {
      seen.set(ctx.id, [...(seen.get(ctx.id) ?? []), { at, coin, id }]);
      return null;
    });
    // A branch on the coin: a replay that drew again could take the other one and pause.
    const side = await ctx.step(coin < 0.5 ? 'heads' : 'tails', () => (coin < 0.5 ? 'H' : 'T'));
    await ctx.sleep(DAY);
    const go = await ctx.waitForEvent<string>('go');
    return { at, coin, id, side, go, later: ctx.now() - at };
  },
});

describe('recorded time, randomness and ids', () => {
  it('replays the values a run saw first, across a sleep, later messages and a cold worker', async () => {
    seen.clear();
    const h = workflowHarness([Draw.actor]);
    const refs = await Promise.all(['a', 'b', 'c', 'd'].map((id) => h.client.start(Draw, id, {})));
    await h.runAll();
    expect(seen.size).toBe(4);

    // A cold worker replays each history from its journal; the clock has moved a day on.
    h.deploy([Draw.actor]);
    h.clock.set(h.clock.now() + DAY);
    for (const ref of refs) await h.client.signal(ref, 'go', 'now');
    await h.runAll();

    for (const ref of refs) {
      // Each \`seen\` step ran once: no replay re-ran it with other values.
      expect(seen.get(ref.key), ref.key).toHaveLength(1);
      const first = seen.get(ref.key)![0]!;
      expect((await h.client.workflowStatus(ref)).status, ref.key).toBe('completed');
      const output = await h.client.result(ref);
      expect(output).toMatchObject({
        at: first.at,
        coin: first.coin,
        id: first.id,
        side: first.coin < 0.5 ? 'H' : 'T',
        go: 'now',
      });
      expect((output as { later: number }).later).toBeGreaterThanOrEqual(2 * DAY);
    }
    expect(new Set([...seen.values()].map(([s]) => s!.id)).size).toBe(4);
  });

  it('gives a step of a turn that crashed before its commit the values the run goes on with', async () => {
    // What each attempt of the step passed outside, by seed.
    const outside = new Map<number, Set<string>>();
    let seed = 0;
    const Token = workflow({
      name: 'token',
      input: z.object({}),
      // Kept: the simulation runs past the default retention, which would clear the output.
      retentionMs: Number.POSITIVE_INFINITY,
      run: async (ctx) => {
        const token = `${ctx.uuid()} ${ctx.random()}`;
        await ctx.step('hand out', () => void outside.get(seed)!.add(token));
        return token;
      },
    });
    for (seed = 1; seed <= 100; seed++) {
      outside.set(seed, new Set());
      const sim = new Simulation({ actors: [], workflows: [Token], seed, faults: { crash: 0.3 } });
      sim.send(Token.ref('t'), 'start', { input: {} });
      await sim.run();
      const { output } = await sim.state(Token.ref('t'));
      expect([...outside.get(seed)!], `seed ${seed}`).toEqual([output]);
    }
  });

  it('hands a step the callback token the run goes on with, whatever crashed', async () => {
    const handedOut = new Map<number, Set<string>>();
    let seed = 0;
    const Approval = workflow({
      name: 'approval',
      input: z.object({}),
      retentionMs: Number.POSITIVE_INFINITY,
      run: async (ctx) => {
        const approved = ctx.createCallback<string>('approved');
        await ctx.step('email the approver', () => void handedOut.get(seed)!.add(approved.token));
        return approved.result;
      },
    });
    for (seed = 1; seed <= 60; seed++) {
      handedOut.set(seed, new Set());
      const sim = new Simulation({
        actors: [],
        workflows: [Approval],
        seed,
        faults: { crash: 0.3 },
      });
      sim.send(Approval.ref('a'), 'start', { input: {} });
      await sim.run();
      const tokens = [...handedOut.get(seed)!];
      expect(tokens, `seed ${seed}`).toHaveLength(1);
      const completion = { token: tokens[0], ok: true, value: 'yes' };
      sim.send(Approval.ref('a'), 'callback' as never, completion as never);
      await sim.run();
      expect((await sim.state(Approval.ref('a'))).output, `seed ${seed}`).toBe('yes');
    }
  });

  it('costs a turn a step for a time read before each step of a loop, and one turn for a time read once', async () => {
    const turnsOf = async (name: string, run: (ctx: WorkflowContext) => Promise<void>) => {
      let turns = 0;
      const Loop = workflow({ name, input: z.object({}), run });
      const h = workflowHarness([Loop.actor], { onTurn: () => void turns++ });
      await h.client.start(Loop, 'l', {});
      await h.runAll();
      expect((await h.client.workflowStatus(Loop.ref('l'))).status).toBe('completed');
      return turns;
    };
    const each = await turnsOf('each', async (ctx) => {
      for (let n = 0; n < 5; n++) {
        const at = ctx.now();
        await ctx.step(`log ${n}`, () => at);
      }
    });
    const once = await turnsOf('once', async (ctx) => {
      const at = ctx.now();
      for (let n = 0; n < 5; n++) await ctx.step(`log ${n}`, () => at + n);
    });
    expect({ each, once }).toEqual({ each: 6, once: 2 });
  });

  it('commits a time read before a step: a step named by it, redone after a crash, keeps its key', async () => {
    const billed = new Set<string>();
    const Bill = workflow({
      name: 'bill',
      input: z.object({}),
      run: async (ctx) => {
        const month = new Date(ctx.now()).toISOString().slice(0, 7);
        await ctx.step(`bill-${month}`, ({ key }) => void billed.add(key));
        return month;
      },
    });
    const h = workflowHarness([Bill.actor]);
    // A second before the month ends; the crash and its redelivery take a few seconds.
    h.clock.set(Date.UTC(2025, 0, 31, 23, 59, 59));
    crashOnceAfterAStep(h, () => h.clock.advance(5_000));
    await h.client.start(Bill, 'acct-1', {});
    await h.runAll();
    const status = await h.client.workflowStatus(Bill.ref('acct-1'));
    expect(status).toMatchObject({ status: 'completed', output: '2025-01' });
    expect([...billed].map((key) => key.slice(key.lastIndexOf(':bill-')))).toEqual([
      ':bill-2025-01:0',
    ]);
  });

  it('commits a time read before a step: a branch on a deadline, redone after a crash, takes the same way', async () => {
    const charged: string[] = [];
    const deadline = Date.UTC(2025, 0, 31, 12);
    const Offer = workflow({
      name: 'offer',
      input: z.object({}),
      run: async (ctx) => {
        if (ctx.now() >= deadline) return 'expired';
        await ctx.step('charge', ({ key }) => void charged.push(key));
        return 'charged';
      },
    });
    const h = workflowHarness([Offer.actor]);
    h.clock.set(deadline - 1_000);
    crashOnceAfterAStep(h, () => h.clock.advance(5_000));
    await h.client.start(Offer, 'o-1', {});
    await h.runAll();
    expect(await h.client.workflowStatus(Offer.ref('o-1'))).toMatchObject({
      status: 'completed',
      output: 'charged',
    });
    expect(new Set(charged).size).toBe(1);
  });
});

/**
 * The first commit of a step's result fails, as a worker that crashed after the step ran outside
 * would leave it; `meanwhile` runs before the message comes again.
 */
function crashOnceAfterAStep(h: WorkflowHarness, meanwhile: () => void): void {
  const { store } = h.backend;
  const commit = store.commit.bind(store);
  let crashed = false;
  store.commit = (made) => {
    const state = made.record.state as WorkflowState | undefined;
    if (!crashed && state?.journal?.some((e) => e.kind === 'step' && e.state === 'done')) {
      crashed = true;
      meanwhile();
      return Promise.reject(new Error('the worker crashed before its commit'));
    }
    return commit(made);
  };
}
