import { actor, defineApp, ErrorCode, workflow } from '@baton/core';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { defaultFaults, noFaults, replayWorkflow, Simulation } from './index.ts';

const DAY = 24 * 60 * 60 * 1000;

const Trial = workflow({
  name: 'trial',
  input: z.object({ user: z.string() }),
  retentionMs: Number.POSITIVE_INFINITY,
  run: async (ctx, { user }) => {
    await ctx.step('welcome', () => `welcome ${user}`);
    await ctx.sleep(30 * DAY);
    return ctx.step('bill', () => `bill ${user}`);
  },
});

const counter = (version: number) =>
  actor({
    name: 'counter',
    version,
    migrate: { 1: (old: { n: number }) => old, 2: (old: { n: number }) => old },
    state: z.object({ n: z.number() }),
    initial: () => ({ n: 0 }),
    handlers: {
      add: {
        payload: z.object({}),
        handle: (ctx) => {
          ctx.state.n++;
        },
      },
    },
  });
const Counter = counter(1);

/** Two calls a day apart; version 2 runs the same commands and says so in its output. */
const twice = (version: string) =>
  workflow({
    name: 'twice',
    version,
    input: z.object({}),
    retentionMs: Number.POSITIVE_INFINITY,
    run: async (ctx) => {
      await ctx.call(Counter.ref('c'), 'add', {});
      await ctx.sleep(DAY);
      await ctx.call(Counter.ref('c'), 'add', {});
      return `done by ${version}`;
    },
  });
const Twice = twice('1');

describe('workflows in a simulation', () => {
  it('runs a defineApp app as it is, whose actors list its workflows already', async () => {
    const app = defineApp({ actors: [Counter], workflows: [Trial] });
    const sim = new Simulation({ ...app, seed: 1, faults: noFaults });
    sim.send(Trial.ref('bo'), 'start', { input: { user: 'bo' } });
    await sim.run();
    expect((await sim.state(Trial.ref('bo'))).output).toBe('bill bo');
  });

  it('runs a workflow on virtual time: a 30-day sleep completes at once', async () => {
    const sim = new Simulation({ actors: [Trial.actor], seed: 1, faults: noFaults });
    sim.send(Trial.ref('ann'), 'start', { input: { user: 'ann' } });
    const started = sim.clock.now();
    await sim.run();

    const state = await sim.state(Trial.ref('ann'));
    expect(state.status).toBe('completed');
    expect(state.output).toBe('bill ann');
    expect(sim.clock.now() - started).toBeGreaterThanOrEqual(30 * DAY);
    // The recorded history replays with the same code, and not with a changed one.
    await expect(replayWorkflow(Trial, state)).resolves.toMatchObject({ outcome: 'completed' });
    const Changed = workflow({
      name: 'trial',
      version: '2',
      input: z.object({ user: z.string() }),
      run: async (ctx) => ctx.sleep(DAY),
    });
    await expect(replayWorkflow(Changed, state)).rejects.toMatchObject({
      code: ErrorCode.NON_DETERMINISTIC,
    });
  });

  it('keeps `workflows` running across the deploys of `upgrades`, and runs the version an upgrade lists', async () => {
    const TwiceV2 = twice('2');
    const sim = new Simulation({
      actors: [Counter],
      workflows: [Twice],
      // The first upgrade leaves the workflow as it is; the second deploys its version 2.
      upgrades: [[counter(2)], [counter(2), TwiceV2.actor], [counter(3)]],
      seed: 4,
      faults: { ...noFaults, deploy: 1, roll: 1 },
      markRetentionMs: 10 * DAY,
    });
    for (const id of ['a', 'b', 'c']) sim.send(Twice.ref(id), 'start', { input: {} });
    expect((await sim.run()).deploys).toBe(3);
    for (const id of ['a', 'b', 'c']) {
      expect((await sim.state(Twice.ref(id))).status).toBe('completed');
    }
    // Six calls sent, six applied.
    expect((await sim.state(Counter.ref('c'))).n).toBe(6);

    // Every process runs the last upgrade now, and with it the workflow's version 2.
    sim.send(Twice.ref('d'), 'start', { input: {} });
    await sim.run();
    expect((await sim.state(Twice.ref('d'))).output).toBe('done by 2');
  });

  it('leaves a finished instance readable after run(), with the default retention, until idle lets it expire', async () => {
    const Greet = workflow({
      name: 'greet',
      input: z.object({ user: z.string() }),
      run: async (ctx, { user }) => {
        await ctx.sleep(DAY);
        return `hello ${user}`;
      },
    });
    const sim = new Simulation({ actors: [], workflows: [Greet], seed: 5, faults: noFaults });
    sim.send(Greet.ref('ann'), 'start', { input: { user: 'ann' } });
    await sim.run();
    expect(await sim.state(Greet.ref('ann'))).toMatchObject({
      status: 'completed',
      output: 'hello ann',
    });

    // Its retention (7 days) passes as it would in production: the instance halts.
    sim.idle(7 * DAY);
    await sim.run();
    expect((await sim.state(Greet.ref('ann'))).status).toBe('new');
  });

  it('runs for a span of virtual time with run({ forMs }), so that a signal arrives mid-sleep', async () => {
    const Shipment = workflow({
      name: 'shipment',
      input: z.object({}),
      events: { shipped: z.object({ day: z.number() }) },
      run: async (ctx) => {
        const shipped = await ctx.race([ctx.waitForEvent('shipped'), ctx.sleep(7 * DAY)]);
        return shipped.index === 0 ? `shipped on day ${shipped.value.day}` : 'gave up';
      },
    });
    for (let seed = 1; seed <= 10; seed++) {
      const sim = new Simulation({ actors: [], workflows: [Shipment], seed });
      const started = sim.clock.now();
      sim.send(Shipment.ref('s'), 'start', { input: {} });
      await sim.run({ forMs: 3 * DAY });
      expect((await sim.state(Shipment.ref('s'))).status, `seed ${seed}`).toBe('waiting');
      // The clock stands at the bound, not at the sleep's end.
      expect(sim.clock.now() - started).toBeGreaterThanOrEqual(3 * DAY);
      expect(sim.clock.now() - started).toBeLessThan(4 * DAY);

      sim.send(Shipment.ref('s'), 'signal', { name: 'shipped', payload: { day: 3 } });
      await sim.run();
      expect((await sim.state(Shipment.ref('s'))).output, `seed ${seed}`).toBe('shipped on day 3');
    }
    // Unbounded, the same run sleeps the week out.
    const sim = new Simulation({ actors: [], workflows: [Shipment], seed: 1, faults: noFaults });
    sim.send(Shipment.ref('s'), 'start', { input: {} });
    await sim.run();
    expect((await sim.state(Shipment.ref('s'))).output).toBe('gave up');
    await expect(sim.run({ forMs: -1 })).rejects.toMatchObject({
      code: ErrorCode.INVALID_ARGUMENT,
      message: /forMs must be a finite number of milliseconds, 0 or more, got -1/,
    });
  });

  it('takes no jump of time past the bound of run({ forMs }), however often the faults pause', async () => {
    const Reminder = workflow({
      name: 'reminder',
      input: z.object({}),
      run: async (ctx) => {
        await ctx.step('note', () => 'noted');
        await ctx.sleep(7 * 60_000);
        return 'reminded';
      },
    });
    const faults = { ...defaultFaults, longPause: 0.3, timeout: 0.2 };
    for (let seed = 1; seed <= 10; seed++) {
      const sim = new Simulation({ actors: [], workflows: [Reminder], seed, faults });
      const started = sim.clock.now();
      sim.send(Reminder.ref('r'), 'start', { input: {} });
      await sim.run({ forMs: 6 * 60_000 });
      // Past the bound by no more than the few milliseconds each step takes.
      expect(sim.clock.now() - started, `seed ${seed}`).toBeLessThan(6 * 60_000 + 1_000);
      expect((await sim.state(Reminder.ref('r'))).status, `seed ${seed}`).not.toBe('completed');
      await sim.run();
      expect(await sim.workflowStatus(Reminder.ref('r')), `seed ${seed}`).toMatchObject({
        status: 'completed',
        output: 'reminded',
      });
    }
  });

  it('takes workflows as defineApp does, and names the option when a workflow is missing', async () => {
    const sim = new Simulation({ actors: [], workflows: [Trial], seed: 2, faults: noFaults });
    sim.send(Trial.ref('bo'), 'start', { input: { user: 'bo' } });
    await sim.run();
    expect((await sim.state(Trial.ref('bo'))).output).toBe('bill bo');

    const without = new Simulation({ actors: [Trial.actor], seed: 3, faults: noFaults });
    const Other = workflow({ name: 'other', input: z.object({}), run: async () => 1 });
    expect(() => without.send(Other.ref('o'), 'start', { input: {} })).toThrow(
      /unknown actor type "wf-other".*; for workflow "other", pass it as defineApp's workflows \(or its \.actor among the actors\)/,
    );
  });

  it('applies each call of a workflow that sleeps past the mark retention once, whatever the seed', async () => {
    // A redelivery (SQS's at-least-once) comes while its message may still be in the queue: a
    // copy of a call made before a 9-day sleep, delivered after it, was kept as too old to tell,
    // and the run's operator redrove it — the reserve applied twice, on 8 of 60 seeds.
    const Stock = actor({
      name: 'stock',
      state: z.object({ reserves: z.number(), releases: z.number() }),
      initial: () => ({ reserves: 0, releases: 0 }),
      handlers: {
        reserve: { payload: z.object({}), handle: (ctx) => void ctx.state.reserves++ },
        release: { payload: z.object({}), handle: (ctx) => void ctx.state.releases++ },
      },
    });
    const Hold = workflow({
      name: 'hold',
      input: z.object({}),
      run: async (ctx) => {
        await ctx.call(Stock.ref('s'), 'reserve', {});
        await ctx.sleep(9 * DAY);
        await ctx.call(Stock.ref('s'), 'release', {});
      },
    });
    const app = defineApp({ actors: [Stock], workflows: [Hold] });
    const twice: number[] = [];
    let redeliveries = 0;
    for (let seed = 1; seed <= 60; seed++) {
      const sim = new Simulation({ ...app, seed });
      sim.send(Hold.ref('h'), 'start', { input: {} });
      await sim.run();
      redeliveries += sim.stats.redeliveries;
      expect((await sim.state(Hold.ref('h'))).status).toBe('completed');
      const stock = await sim.state(Stock.ref('s'));
      if (stock.reserves !== 1 || stock.releases !== 1) twice.push(seed);
    }
    expect(twice).toEqual([]);
    expect(redeliveries).toBeGreaterThan(0);
  });
});
