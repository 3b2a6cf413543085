/**
 * A workflow step runs only on a committed record. A turn's messages commit together: a step
 * run in the handling of a later message of the batch would see what an earlier one drew (a
 * callback's secret) or armed, not committed yet; a refused commit redoes the turn, which
 * draws again, and the step's effect outside would have seen both. The earlier messages commit
 * first instead, and the message is handled again on the committed record.
 */
import { type WorkflowState, workflow } from '@baton/core';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { workflowHarness } from './harness.ts';

describe('a step after an earlier message of its turn', () => {
  it('waits for that message to commit: what it drew is handed out once, whatever is redone', async () => {
    const handed = new Set<string>();
    const Approve = workflow({
      name: 'approve',
      input: z.object({}),
      run: async (ctx) => {
        await ctx.waitForEvent('go');
        const callback = ctx.createCallback<string>('approval');
        await ctx.step('hand', () => void handed.add(callback.token));
        return 'handed';
      },
    });
    const h = workflowHarness([Approve.actor]);
    const ref = await h.client.start(Approve, 'a', {});
    await h.runAll();
    // One batch: the event, whose handling draws the callback's secret and sends a wake, and a
    // wake already waiting behind it (a redelivered one): the wake's handling finds the secret
    // in the record, not committed yet.
    await h.client.signal(ref, 'go');
    await h.client.send(ref as never, '_wake' as never, {} as never);
    // The store refuses the first commit of that batch: the turn is redone from the store's
    // record, and draws again.
    const { store } = h.backend;
    const commit = store.commit.bind(store);
    let refused = false;
    store.commit = (made) => {
      const state = made.record.id === ref.id ? (made.record.state as WorkflowState) : undefined;
      if (!refused && state?.journal.some((e) => e.kind === 'callback')) {
        refused = true;
        return Promise.reject(new Error('the store is unavailable'));
      }
      return commit(made);
    };
    await h.runAll();

    expect(refused).toBe(true);
    expect(handed.size).toBe(1);
    const state = (await h.state(ref.id)) as WorkflowState;
    expect(state.journal.find((e) => e.name === 'hand')?.state).toBe('done');
  });
});

describe('a step due in a handling after others of its batch', () => {
  it('runs in that batch, once the others commit: a wake behind a wake runs its step without another going through the queue', async () => {
    const ran: string[] = [];
    const Steps = workflow({
      name: 'steps',
      input: z.object({}),
      maxStepsPerTurn: 1,
      run: async (ctx) => {
        for (const name of ['one', 'two', 'three']) {
          await ctx.step(name, () => void ran.push(name));
        }
        return 'done';
      },
    });
    const h = workflowHarness([Steps.actor]);
    const ref = await h.client.start(Steps, 's', {});
    // The start runs step one and sends a wake, its turn's one step taken.
    await h.worker.poll();
    expect(ran).toEqual(['one']);
    // A second wake behind it (a redelivered one): one batch of two wakes.
    await h.client.send(ref as never, '_wake' as never, {} as never);
    await h.worker.poll();
    // The first wake runs step two. The second finds the first's effects uncommitted: they
    // commit, and it is handled again on the committed record, where step three is due.
    expect(ran).toEqual(['one', 'two', 'three']);
    await h.runAll();
    expect(ran).toEqual(['one', 'two', 'three']);
    expect(((await h.state(ref.id)) as WorkflowState).status).toBe('completed');
  });
});

describe('a copy of an ingress message handled again once its batch commits', () => {
  it('is skipped when that commit closes the outcome page its first copy is in: a copy of a signal settles no later wait', async () => {
    const ran: number[] = [];
    const Ticks = workflow({
      name: 'ticks',
      input: z.object({}),
      run: async (ctx) => {
        for (let i = 0; i < 5; i++) {
          await ctx.waitForEvent('tick');
          await ctx.step(`after ${i}`, () => void ran.push(i));
        }
        return 'done';
      },
    });
    // Pages close past 1,000 bytes of entries: the start's outcome and one tick's fit, two
    // ticks' do not.
    const h = workflowHarness([Ticks.actor], { limits: { outcomePageBytes: 1000 } });
    const ref = await h.client.start(Ticks, 't', {});
    await h.runAll();
    const bodies = new Map<string, string>();
    const send = h.backend.queue.send.bind(h.backend.queue);
    h.backend.queue.send = (messages) => {
      for (const m of messages) bodies.set(m.dedupeId, m.body);
      return send(messages);
    };
    const tick = (key: string) => h.client.signal(ref, 'tick', undefined, { idempotencyKey: key });
    const { messageId } = await tick('k0');
    await h.runAll();
    expect(ran).toEqual([0]);
    const page = async () => (await h.backend.store.load(ref.id))?.outcomePage?.page ?? 0;
    // The open page: a life numbers its pages from when they began.
    const open = await page();

    // One batch: a new tick, whose handling runs step 1 and whose outcome closes the open page,
    // then a copy of k0 (a queue's redelivery), whose outcome is in that page.
    await tick('k1');
    await send([{ group: ref.id, dedupeId: 'k0-again', body: bodies.get(messageId)! }]);
    await h.worker.poll();

    // The copy found step 2 due behind the new tick, uncommitted: that commit went first and
    // closed the page, and the copy was found in it, not taken for the next tick.
    expect(await page(), 'the batch closed it').toBe(open + 1);
    expect(ran).toEqual([0, 1]);
    // Both are done with: acked, none left to come back.
    expect(h.backend.queue.messages()).toEqual([]);
  });
});
