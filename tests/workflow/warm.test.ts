/**
 * Warm runs: a worker continues a suspended run in memory (the run function is entered once
 * however many turns the instance takes), and replays it from the record whenever the record is
 * not the one its kept run left — another worker committed, or its own turn never committed.
 * Each test counts entries into the run function: every replay enters it again.
 */
import { type AnyActorDefinition, actor, defineApp, silentLogger, workflow } from '@baton/core';
import type { Store } from '@baton/core/adapter';
import { createEngine, type Engine, Worker } from '@baton/core/engine';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { runUntilIdle, setup } from '../engine/helpers.ts';

const Counter = actor({
  name: 'counter',
  state: z.object({ n: z.number() }),
  initial: () => ({ n: 0 }),
  handlers: {
    add: {
      payload: z.object({}),
      handle: (ctx) => ++ctx.state.n,
    },
  },
});

/** Another worker on the same backend, with its own memory; `store` may wrap the backend's. */
function otherWorker(
  h: ReturnType<typeof setup>,
  actors: readonly AnyActorDefinition[],
  options: { store?: Store; workflowCacheSize?: number } = {},
): { worker: Worker; engine: Engine } {
  const engine = createEngine({
    actors,
    store: options.store ?? h.backend.store,
    queue: h.backend.queue,
    clock: h.clock,
    logger: silentLogger,
    ...(options.workflowCacheSize === undefined
      ? {}
      : { workflowCacheSize: options.workflowCacheSize }),
  });
  return { worker: new Worker(engine), engine };
}

describe('a warm worker', () => {
  it('continues a suspended run in memory across 40 turns instead of replaying it', async () => {
    let runs = 0;
    const Chain = workflow({
      name: 'chain',
      input: z.object({ n: z.number() }),
      maxStepsPerTurn: 1,
      run: async (ctx, { n }) => {
        runs++;
        let last = 0;
        for (let i = 0; i < n; i++) {
          // A reply is a turn of its own; so is each step past the first of a turn.
          last = (await ctx.call(Counter.ref('c'), 'add', {})) as number;
          last += (await ctx.step(`s${i}`, () => i)) as number;
        }
        return last;
      },
    });
    const app = defineApp({ actors: [Counter], workflows: [Chain] });
    const h = setup({ actors: app.actors });

    const ref = await h.client.start(Chain, 'one', { n: 20 });
    await h.run();

    expect(await h.client.result(ref)).toBe(20 + 19);
    expect(runs).toBe(1);
    expect(await h.client.workflowStatus(ref)).toMatchObject({ status: 'completed', steps: 40 });
  });

  it('replays when another worker committed since, and ends with the right output', async () => {
    let runs = 0;
    const Phases = workflow({
      name: 'phases',
      input: z.object({}),
      run: async (ctx) => {
        runs++;
        const a = await ctx.step('a', () => 'a');
        const go = await ctx.waitForEvent<string>('go');
        const b = await ctx.step('b', () => 'b');
        const go2 = await ctx.waitForEvent<string>('go2');
        return [a, go, b, go2].join(' ');
      },
    });
    const app = defineApp({ actors: [Counter], workflows: [Phases] });
    const h = setup({ actors: app.actors });
    const b = otherWorker(h, app.actors);

    const ref = await h.client.start(Phases, 'p', {});
    await runUntilIdle(h.worker, h.backend, h.clock);
    expect(runs).toBe(1);
    await h.client.signal(ref, 'go', 'one');
    await runUntilIdle(b.worker, h.backend, h.clock);
    expect(runs).toBe(2); // worker b had no run in memory
    await h.client.signal(ref, 'go2', 'two');
    await runUntilIdle(h.worker, h.backend, h.clock);

    expect(runs).toBe(3); // worker a's kept run was left behind by b's commit
    expect(await h.client.result(ref)).toBe('a one b two');
  });

  it('replays when its own turn did not commit, so the result the record holds is the one used', async () => {
    let runs = 0;
    let draws = 0;
    const Draw = workflow({
      name: 'draw',
      input: z.object({}),
      run: async (ctx) => {
        runs++;
        // The step and the wait are issued together: the step's result changes nothing else.
        const [drawn, go] = await Promise.all([
          ctx.step('draw', () => ++draws),
          ctx.waitForEvent<string>('go'),
        ]);
        return `${drawn} ${go}`;
      },
    });
    const app = defineApp({ actors: [Counter], workflows: [Draw] });
    const h = setup({ actors: app.actors });
    let failNextCommit = false;
    const failing = new Proxy(h.backend.store, {
      get: (target, prop) => {
        const value = Reflect.get(target, prop, target);
        if (prop === 'commit') {
          return (...args: unknown[]) => {
            if (!failNextCommit) return value.apply(target, args);
            failNextCommit = false;
            return Promise.reject(new Error('the store is unreachable (injected)'));
          };
        }
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    const a = otherWorker(h, app.actors, { store: failing });

    const ref = await h.client.start(Draw, 'd', {});
    failNextCommit = true;
    await a.worker.poll(); // draws 1, keeps the run, and its commit fails
    expect(draws).toBe(1);
    await runUntilIdle(h.worker, h.backend, h.clock); // redelivered: another worker draws 2
    expect(draws).toBe(2);
    await h.client.signal(ref, 'go', 'go');
    await runUntilIdle(a.worker, h.backend, h.clock);

    expect(await h.client.result(ref)).toBe('2 go');
    expect(runs).toBe(3);
  });

  it('keeps as many runs as it is told, least recently used out first, and replays the rest', async () => {
    let runs = 0;
    const Wait = workflow({
      name: 'wait',
      input: z.object({}),
      run: async (ctx, _input) => {
        runs++;
        const x = await ctx.waitForEvent<number>('x');
        const y = await ctx.waitForEvent<number>('y');
        return x + y;
      },
    });
    const app = defineApp({ actors: [Counter], workflows: [Wait] });
    const h = setup({ actors: app.actors });
    const w = otherWorker(h, app.actors, { workflowCacheSize: 1 });
    const drive = () => runUntilIdle(w.worker, h.backend, h.clock);

    const one = await h.client.start(Wait, 'one', {});
    const two = await h.client.start(Wait, 'two', {});
    await drive(); // one is pushed out by two
    expect(runs).toBe(2);
    await h.client.signal(two, 'x', 1);
    await drive(); // two is warm
    expect(runs).toBe(2);
    await h.client.signal(one, 'x', 10);
    await drive(); // one replays, and pushes two out
    expect(runs).toBe(3);
    await h.client.signal(two, 'y', 2);
    await h.client.signal(one, 'y', 20);
    await drive(); // two replays and ends (an ended run is not kept): one is still warm

    expect(runs).toBe(4);
    expect(await h.client.result(one)).toBe(30);
    expect(await h.client.result(two)).toBe(3);
  });
});
