/**
 * Workflows on any backend: the same scenario on the embedded backend and on DynamoDB Local +
 * ElasticMQ — a step retried on a durable timer, an actor call, a sleep, an event sent before
 * its wait, a callback and a child workflow, each applied once, and a saga on cancel.
 */
import { defineApp, ErrorCode, silentLogger, type WorkflowState, workflow } from '@baton/core';
import { isRetentionTimer } from '@baton/core/adapter';
import { Client } from '@baton/core/client';
import { createEngine, fireDueTimers, Worker } from '@baton/core/engine';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import type { ConformanceBackend } from './ConformanceBackend.ts';
import { Ledger } from './ledger.ts';
import { backendPerTest } from './suiteBackend.ts';

/** Per step name, the keys of its runs. */
const stepRuns = new Map<string, string[]>();
const ran = (name: string, key: string) => stepRuns.set(name, [...(stepRuns.get(name) ?? []), key]);

const Label = workflow({
  name: 'label',
  input: z.object({ order: z.string() }),
  run: async (ctx, { order }) =>
    ctx.step('print', ({ key }) => {
      ran('print', key);
      return `L-${order}`;
    }),
});

const Order = workflow({
  name: 'order',
  input: z.object({ order: z.string() }),
  run: async (ctx, { order }) => {
    const charged = await ctx.step(
      'charge',
      ({ key, attempt }) => {
        ran('charge', key);
        if (attempt === 1) throw new Error('payment service busy');
        return 30;
      },
      { retry: { initialDelayMs: 200 }, compensate: () => ran('refund', 'refund') },
    );
    await ctx.call(Ledger.ref(order), 'add', { entry: 'charged', amount: charged });
    await ctx.sleep(300);
    const tracking = await ctx.waitForEvent<string>('shipped');
    const label = await ctx.child(Label, `label-${order}`, { order });
    const callback = ctx.createCallback<string>('delivered');
    await ctx.step('notify', ({ key }) => ran(`notify ${callback.token}`, key));
    const delivered = await callback.result;
    return { tracking, label, delivered };
  },
});

/** 300 steps of 2 KB each: a history half again as large as a DynamoDB item. */
const Long = workflow({
  name: 'long',
  input: z.object({ steps: z.number() }),
  run: async (ctx, { steps }) => {
    const values: string[] = [];
    for (let i = 0; i < steps; i++) {
      values.push(await ctx.step(`s${i}`, () => `${i}:${'v'.repeat(2_000)}`));
    }
    const last = await ctx.waitForEvent<string>('last');
    return { steps: values.filter((v, i) => v.startsWith(`${i}:`)).length, last };
  },
});

export function workflowSuite(name: string, open: () => Promise<ConformanceBackend>): void {
  describe(`workflows on ${name}`, () => {
    const fresh = backendPerTest(open);

    async function start() {
      const b = await fresh();
      const { actors } = defineApp({ actors: [Ledger], workflows: [Order, Label, Long] });
      const options = {
        actors,
        store: b.store,
        queue: b.queue,
        clock: b.clock,
        logger: silentLogger,
      };
      const engine = createEngine({ ...options, visibilityTimeoutMs: 2_000 });
      const worker = new Worker(engine);
      const client = new Client(options).asSystem();
      /** Polls until the inbox is empty, then fires due timers, until neither is left. */
      const run = async () => {
        for (let i = 0; i < 500; i++) {
          if ((await worker.poll()) > 0) continue;
          if ((await b.pending()) > 0) {
            await b.pass(250);
            continue;
          }
          // A finished instance's expiry is housekeeping, not work: no time passes for it alone.
          const [soonest] = (await b.store.listDueTimers(Number.MAX_SAFE_INTEGER, 100)).filter(
            (t) => !isRetentionTimer(t),
          );
          if (!soonest) return;
          await b.pass(Math.max(0, soonest.at - b.clock.now()) + 1);
          await fireDueTimers(engine, b.clock.now());
        }
        throw new Error('the workflow did not settle');
      };
      /** The same app on another worker, which has no run in memory. */
      const coldWorker = () => new Worker(createEngine({ ...options, visibilityTimeoutMs: 2_000 }));
      return { b, client, run, coldWorker };
    }

    it('runs each step, call, sleep, event, child and callback once, to its output', async () => {
      stepRuns.clear();
      const { b, client, run } = await start();
      const ref = await client.start(Order, 'o1', { order: 'o1' });
      await client.signal(ref, 'shipped', 'T-1'); // before the wait: kept
      await run();
      const [token] = [...stepRuns.keys()]
        .filter((k) => k.startsWith('notify '))
        .map((k) => k.slice('notify '.length));
      expect(token).toBeDefined();
      await client.completeCallback(token!, { value: 'at the door' });
      await run();

      expect(await client.result(ref)).toEqual({
        tracking: 'T-1',
        label: 'L-o1',
        delivered: 'at the door',
      });
      expect(stepRuns.get('charge')).toHaveLength(2);
      expect(new Set(stepRuns.get('charge')).size).toBe(1);
      expect(stepRuns.get('print')).toHaveLength(1);
      expect((await b.store.load(Ledger.ref('o1').id))?.state).toEqual({
        entries: ['charged'],
        total: 30,
      });
      const state = (await b.store.load(ref.id))?.state as WorkflowState;
      expect(state.journal.map((e) => `${e.kind} ${e.name} ${e.state}`)).toEqual([
        'step charge done',
        'call ledger.add done',
        'sleep sleep done',
        'event shipped done',
        'child label done',
        'callback delivered done',
        'step notify done',
      ]);
    });

    it('moves a history larger than an item into pages, a cold worker replays it whole, and the pages go when it expires', async () => {
      const { b, client, run, coldWorker } = await start();
      const ref = await client.start(Long, 'long', { steps: 300 });
      await run();
      const state = (await b.store.load(ref.id))?.state as WorkflowState;
      expect(state.status).toBe('waiting');
      expect(state.sealed?.pages).toBeGreaterThan(1);

      await client.signal(ref, 'last', 'done');
      const cold = coldWorker();
      for (let i = 0; i < 50 && (await cold.poll()) === 0; i++) await b.pass(250);
      expect(await client.result(ref)).toEqual({ steps: 300, last: 'done' });

      // Its retention ends (its expiry timer's message, sent now): the pages go, then it halts.
      const ended = (await b.store.load(ref.id))?.state as WorkflowState;
      const pages = Array.from({ length: ended.sealed?.pages ?? 0 }, (_, n) => ({
        kind: 'page' as const,
        peer: `wf:${ended.runId}:${n}`,
      }));
      expect(await b.store.readOverflow(ref.id, pages)).toHaveLength(pages.length);
      await client.send(ref, '_expire' as never, {} as never);
      await run();
      expect(await client.workflowStatus(ref)).toMatchObject({ status: 'new' });
      expect(await b.store.readOverflow(ref.id, pages)).toEqual([]);
    });

    it('cancels an instance: its compensations run once and it ends cancelled', async () => {
      stepRuns.clear();
      const { client, run } = await start();
      const ref = await client.start(Order, 'o2', { order: 'o2' });
      await run();
      await client.cancel(ref, { reason: 'customer' });
      await run();
      await expect(client.result(ref)).rejects.toMatchObject({ code: ErrorCode.CANCELLED });
      expect(stepRuns.get('refund')).toHaveLength(1);
    });
  });
}
