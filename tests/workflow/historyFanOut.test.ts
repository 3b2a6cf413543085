/**
 * A turn that journals thousands of commands at once (a fan-out of sends) moves most of them out
 * into pages in that turn: more pages than one commit holds (DynamoDB takes 100 items; the store
 * here 10, so a thousand sends are enough). The message that made them is applied all the same,
 * its pages written in commits of their own before it, and every send leaves once: the instance
 * does not stop on that message, kept as a dead letter that a redrive would keep again.
 */
import { actor, defineApp, silentLogger, type WorkflowState, workflow } from '@baton/core';
import type { Commit, Store } from '@baton/core/adapter';
import { createEngine, Worker } from '@baton/core/engine';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { runUntilIdle } from '../engine/helpers.ts';
import { workflowHarness } from './harness.ts';

/** About 90 bytes of journal each: some 13 pages of 7 KiB. */
const SENDS = 1_000;
const limits = { maxTransactionItems: 10 };

const Sink = actor({
  name: 'sink',
  state: z.object({ told: z.number() }),
  initial: () => ({ told: 0 }),
  handlers: {
    tell: {
      payload: z.object({}),
      handle: (ctx) => {
        ctx.state.told++;
      },
    },
  },
});

const FanOut = workflow({
  name: 'fanout',
  input: z.object({ sends: z.number() }),
  retentionMs: Number.POSITIVE_INFINITY,
  run: async (ctx, { sends }) => {
    await ctx.waitForEvent('go');
    for (let i = 0; i < sends; i++) ctx.send(Sink.ref('s'), 'tell', {});
    await ctx.waitForEvent('end');
    return sends;
  },
});

const app = defineApp({ actors: [Sink], workflows: [FanOut] });

/** Whether `commit` writes a record that counts pages of the instance's history. */
const countsPages = (commit: Commit) =>
  ((commit.record.state as WorkflowState | undefined)?.sealed?.pages ?? 0) > 0;

describe('a turn that journals more than one commit can move out', () => {
  it('writes its pages in commits of their own first, and the run goes on: each send leaves once', async () => {
    const h = workflowHarness(app.actors, { limits });
    const ref = await h.client.start(FanOut, 'f', { sends: SENDS });
    await h.runAll();
    await h.client.signal(ref, 'go', {});
    await h.runAll();

    const state = (await h.record(ref.id))?.state as WorkflowState;
    expect(await h.backend.store.listDeadLetters(ref.id)).toEqual([]);
    expect(state.status).toBe('waiting');
    expect(state.sealed?.pages).toBeGreaterThan(limits.maxTransactionItems);
    expect(await h.state(Sink.ref('s').id)).toEqual({ told: SENDS });

    // A cold worker reads every page back and replays the run to its end.
    const cold = new Worker(
      createEngine({ actors: app.actors, ...h.backend, clock: h.clock, logger: silentLogger }),
    );
    await h.client.signal(ref, 'end', {});
    await runUntilIdle(cold, h.backend, h.clock);
    expect(await h.client.result(ref)).toBe(SENDS);
    expect(await h.client.workflowStatus(ref)).toMatchObject({ steps: SENDS + 2 });
    expect(await h.state(Sink.ref('s').id)).toEqual({ told: SENDS });
  });

  it('goes on after a crash between the pages written ahead and the message’s commit', async () => {
    const h = workflowHarness(app.actors, { limits });
    const { store } = h.backend;
    let crashes = 0;
    let ahead = 0;
    // The first commit whose record counts pages: the message's, after the pages went ahead.
    const crashing: Store = new Proxy(store, {
      get: (target, prop) => {
        if (prop === 'commit') {
          return async (commit: Commit) => {
            if (!countsPages(commit) && commit.overflow?.some((mark) => mark.kind === 'page')) {
              ahead++;
            }
            if (crashes === 0 && countsPages(commit)) {
              expect(ahead).toBeGreaterThan(0);
              crashes++;
              throw new Error('the worker crashed before its commit');
            }
            return target.commit(commit);
          };
        }
        const value = Reflect.get(target, prop, target);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    const worker = new Worker(
      createEngine({
        actors: app.actors,
        ...h.backend,
        store: crashing,
        clock: h.clock,
        logger: silentLogger,
      }),
    );
    const ref = await h.client.start(FanOut, 'f', { sends: SENDS });
    await h.client.signal(ref, 'go', {});
    await h.client.signal(ref, 'end', {});
    await runUntilIdle(worker, h.backend, h.clock);

    expect(crashes).toBe(1);
    expect(await h.client.result(ref)).toBe(SENDS);
    expect(await h.state(Sink.ref('s').id)).toEqual({ told: SENDS });
  });
});
