/**
 * A workflow call that fails with no reply may have been applied all the same, or may be later:
 * it timed out while its message waited in the actor's inbox (ASK_TIMEOUT), or the actor kept it
 * as a dead letter (DEAD_LETTERED); or it was applied, and its reply was too large to journal
 * (MESSAGE_TOO_LARGE, `details.applied`). Its compensation is kept, and runs with no reply when the
 * saga unwinds; it reaches the actor after the call's message, on the same channel. Counted: the
 * reserves and releases the shelf applied, and what it holds at the end.
 */
import {
  type AnyWorkflowDefinition,
  actor,
  ErrorCode,
  RetryableError,
  replayWorkflow,
  TerminalError,
  type WorkflowState,
  workflow,
} from '@baton/core';
import { pauseActor, purgeDeadLetter, redriveDeadLetter, resumeActor } from '@baton/core/engine';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { workflowHarness } from './harness.ts';

/** The shelf's stock database is down. */
const outage = { on: false };
/** The shelf's code leaves state its schema refuses (a bad deploy). */
const broken = { on: false };
/** The shelf's code sends more with a reserve than one commit can hold (a bad deploy). */
const chatty = { on: false };
/** The shelf's code replies to a reserve with more than a workflow journals (a bad deploy). */
const wordy = { on: false };

/** Where the shelf's chatty code sends its notes. */
const Stocklog = actor({
  name: 'stocklog',
  state: z.object({ notes: z.number() }),
  initial: () => ({ notes: 0 }),
  handlers: {
    note: {
      payload: z.object({ text: z.string() }),
      handle: (ctx) => {
        ctx.state.notes += 1;
      },
    },
  },
});

const Shelf = actor({
  name: 'shelf',
  state: z.object({
    held: z.record(
      z.string(),
      z.number().refine(() => !broken.on, 'refused by a bad deploy'),
    ),
    reserves: z.number(),
    releases: z.number(),
  }),
  initial: () => ({ held: {} as Record<string, number>, reserves: 0, releases: 0 }),
  handlers: {
    reserve: {
      payload: z.object({ orderId: z.string(), qty: z.number() }),
      handle: (ctx, { orderId, qty }) => {
        if (qty > 100) throw new TerminalError(`no shelf holds ${qty}`);
        if (outage.on) throw new RetryableError('the stock database is down');
        ctx.state.reserves += 1;
        ctx.state.held[orderId] = qty;
        // Thirty notes of 150 kB: more bytes than one commit holds (4 MB).
        for (let i = 0; chatty.on && i < 30; i++) {
          ctx.send(Stocklog.ref('kettle'), 'note', { text: 'x'.repeat(150_000) });
        }
        // A manifest of 70 KiB: past the 64 KiB a workflow journals per value.
        return wordy.on ? { manifest: 'x'.repeat(70 * 1024) } : undefined;
      },
    },
    release: {
      payload: z.object({ orderId: z.string() }),
      handle: (ctx, { orderId }) => {
        ctx.state.releases += 1;
        delete ctx.state.held[orderId];
      },
    },
  },
});
const shelf = Shelf.ref('kettle');

const Order = workflow({
  name: 'order',
  input: z.object({}),
  retentionMs: Number.POSITIVE_INFINITY,
  run: async (ctx) => {
    await ctx.call(
      shelf,
      'reserve',
      { orderId: ctx.id, qty: 3 },
      {
        timeoutMs: 60_000,
        compensate: (reply, saga) => {
          saga.log.info('releasing', { replied: reply !== undefined });
          return saga.call(shelf, 'release', { orderId: ctx.id });
        },
      },
    );
    return 'reserved';
  },
});

/** Reserves on two shelves, each undone by a release; the second call may time out. */
const Pair = workflow({
  name: 'pair',
  input: z.object({}),
  retentionMs: Number.POSITIVE_INFINITY,
  run: async (ctx) => {
    for (const key of ['a', 'b']) {
      const at = Shelf.ref(key);
      await ctx.call(
        at,
        'reserve',
        { orderId: ctx.id, qty: 1 },
        {
          timeoutMs: 60_000,
          compensate: (_, saga) => saga.call(at, 'release', { orderId: ctx.id }),
        },
      );
    }
  },
});

/** Races a reserve against a second's sleep: the reserve loses when its shelf is paused. */
const Hurried = workflow({
  name: 'hurried',
  input: z.object({}),
  retentionMs: Number.POSITIVE_INFINITY,
  run: async (ctx) => {
    const { index } = await ctx.race([
      ctx.call(
        shelf,
        'reserve',
        { orderId: ctx.id, qty: 3 },
        {
          timeoutMs: 60_000,
          compensate: (_, saga) => saga.call(shelf, 'release', { orderId: ctx.id }),
        },
      ),
      ctx.sleep(1_000),
    ]);
    return index === 0 ? 'reserved' : 'gave up';
  },
});

type Harness = ReturnType<typeof workflowHarness>;
/** The operator pauses an actor (its messages wait, parked), or resumes it. */
const pause = (h: Harness, id: string) =>
  pauseActor(h.backend.store, h.backend.queue, id, { by: 'ops', now: h.clock.now() });
const resume = (h: Harness, id: string) =>
  resumeActor(h.backend.store, h.backend.queue, id, { by: 'ops', now: h.clock.now() });
/**
 * Checks that `history` replays to `outcome` on the code, and so does the history as the release
 * before left it: the first `kept` commands of `before` alone (every one of them completed).
 */
async function replaysBothWays(
  definition: AnyWorkflowDefinition,
  history: WorkflowState,
  before: WorkflowState,
  outcome: string,
  kept: number,
) {
  await expect(replayWorkflow(definition, history)).resolves.toEqual({
    outcome,
    commands: history.journal.length,
  });
  const earlier = { ...before, journal: before.journal.slice(0, kept), completed: kept };
  await expect(replayWorkflow(definition, earlier)).resolves.toEqual({ outcome, commands: kept });
}

/** An instance's history, a command a line. */
const commands = async (h: Harness, id: string) =>
  ((await h.state(id)) as WorkflowState).journal.map((e) => `${e.kind} ${e.name} ${e.state}`);

describe('a workflow call that failed with no reply', () => {
  it('is undone when it lost a race, and not in a race an earlier release ran', async () => {
    outage.on = false;
    const h = workflowHarness([Hurried.actor, Shelf]);
    await pause(h, shelf.id);
    const ref = await h.client.start(Hurried, 'h-1', {});
    await h.runAll();
    await resume(h, shelf.id);
    await h.runAll();
    expect(await h.client.result(ref)).toBe('gave up');
    // The reserve was applied after the call timed out, and released after it.
    expect(await h.state(shelf.id)).toEqual({ held: {}, reserves: 1, releases: 1 });
    const history = (await h.state(ref.id)) as WorkflowState;
    expect(await commands(h, ref.id)).toEqual([
      'call shelf.reserve failed',
      'sleep sleep done',
      'call shelf.release failed', // parked too: it timed out as well, and was applied
    ]);
    expect(history.journal[0]?.unreplied).toBe(true);
    // As the release before ran it: the loser's failure journaled without the mark, left alone.
    const { unreplied: _, ...unmarked } = history.journal[0]!;
    const before = { ...history, journal: [unmarked, ...history.journal.slice(1)] };
    await replaysBothWays(Hurried, history, before, 'completed', 2);
  });

  it('is undone by a saga begun now, and not by one an earlier release began without it', async () => {
    outage.on = false;
    const h = workflowHarness([Pair.actor, Shelf]);
    await pause(h, 'shelf/b');
    const ref = await h.client.start(Pair, 'p-1', {});
    await h.runAll();
    await resume(h, 'shelf/b');
    await h.runAll();
    // b's reserve timed out, and was applied on resume: both are released, b's first.
    expect(await h.state('shelf/a')).toEqual({ held: {}, reserves: 1, releases: 1 });
    expect(await h.state('shelf/b')).toEqual({ held: {}, reserves: 1, releases: 1 });
    const history = (await h.state(ref.id)) as WorkflowState;
    const [reserveA, reserveB, byCommand, , , releaseA] = history.journal;
    expect(history.journal.map((e) => `${e.kind} ${e.name} ${e.state}`)).toEqual([
      'call shelf.reserve done',
      'call shelf.reserve failed',
      'patch baton:saga-by-command done',
      'patch baton:saga-unreplied-calls done',
      'call shelf.release failed', // b's, parked too: it timed out as well, and was applied
      'call shelf.release done',
    ]);
    await expect(replayWorkflow(Pair, history)).resolves.toEqual({
      outcome: 'failed',
      commands: 6,
    });

    // The same saga as the release before ran it: undoing a's reserve alone, without the patch.
    const earlier: WorkflowState = {
      ...history,
      journal: [reserveA!, reserveB!, byCommand!, { ...releaseA!, seq: 3, order: 2 }],
      completed: 3,
    };
    await expect(replayWorkflow(Pair, earlier)).resolves.toEqual({
      outcome: 'failed',
      commands: 4,
    });
  });

  it('timed out while its message waited: released after the late reserve', async () => {
    outage.on = false;
    const h = workflowHarness([Order.actor, Shelf]);
    // The operator has paused the shelf: its messages wait, parked, until it is resumed.
    await pause(h, shelf.id);
    const ref = await h.client.start(Order, 'o-1', {});
    await h.runAll();
    await expect(h.client.result(ref)).rejects.toMatchObject({ code: ErrorCode.ASK_TIMEOUT });
    // The reserve and the saga's release wait there, in the order they were sent.
    expect((await h.record(shelf.id))?.parked).toBe(2);

    await resume(h, shelf.id);
    await h.runAll();
    expect(await h.state(shelf.id)).toEqual({ held: {}, reserves: 1, releases: 1 });
    expect((await h.client.workflowStatus(ref)).status).toBe('failed');

    const history = (await h.state(ref.id)) as WorkflowState;
    expect(await commands(h, ref.id)).toEqual([
      'call shelf.reserve failed',
      'patch baton:saga-by-command done',
      'patch baton:saga-unreplied-calls done',
      // Parked too, the release timed out as well (the day passed), and was applied on resume.
      'call shelf.release failed',
    ]);
    // As an earlier Baton ended it: no patch, and nothing undone for a call with no reply.
    await replaysBothWays(Order, history, history, 'failed', 1);
  });

  it('was dead-lettered: released once, and nothing held once the letter is purged', async () => {
    outage.on = true;
    const h = workflowHarness([Order.actor, Shelf]);
    const ref = await h.client.start(Order, 'o-2', {});
    await h.runAll();
    await expect(h.client.result(ref)).rejects.toMatchObject({ code: ErrorCode.DEAD_LETTERED });
    const [letter] = await h.backend.store.listDeadLetters(shelf.id);
    expect(letter?.envelope.name).toBe('reserve');
    // The saga released what the reserve might hold: a redrive now would be applied after the
    // release, so a plain one is refused, nothing sent; the letter is purged.
    expect(await h.state(shelf.id)).toEqual({ held: {}, reserves: 0, releases: 1 });

    outage.on = false;
    await expect(
      redriveDeadLetter(h.backend.store, h.backend.queue, shelf.id, letter!.messageId),
    ).rejects.toMatchObject({
      code: ErrorCode.INVALID_STATE,
      details: { answered: 'asker', from: ref.id },
    });
    await h.runAll();
    expect(await h.state(shelf.id)).toEqual({ held: {}, reserves: 0, releases: 1 });
    await purgeDeadLetter(h.backend.store, shelf.id, letter!.messageId, { by: 'test' });
    await h.runAll();
    expect(await h.state(shelf.id)).toEqual({ held: {}, reserves: 0, releases: 1 });
    expect(await h.backend.store.listDeadLetters(shelf.id)).toEqual([]);
  });

  it("was kept as a dead letter for its receiver's code (state its schema refuses): released, as a dead-lettered one", async () => {
    outage.on = false;
    broken.on = true;
    const h = workflowHarness([Order.actor, Shelf]);
    const ref = await h.client.start(Order, 'o-3', {});
    await h.runAll();
    broken.on = false;
    await expect(h.client.result(ref)).rejects.toMatchObject({
      code: ErrorCode.DEAD_LETTERED,
      details: { cause: { code: ErrorCode.INVALID_STATE } },
    });
    const history = (await h.state(ref.id)) as WorkflowState;
    expect(history.journal[0]).toMatchObject({ kind: 'call', unreplied: true });
    expect(await h.state(shelf.id)).toEqual({ held: {}, reserves: 0, releases: 1 });
    expect(await h.backend.store.listDeadLetters(shelf.id)).toHaveLength(1);
  });

  it("was kept as a dead letter for its receiver's code (sends too large for a commit): released, as a dead-lettered one", async () => {
    outage.on = false;
    chatty.on = true;
    const h = workflowHarness([Order.actor, Shelf, Stocklog]);
    const ref = await h.client.start(Order, 'o-4', {});
    await h.runAll();
    chatty.on = false;
    const [letter] = await h.backend.store.listDeadLetters(shelf.id);
    await expect(h.client.result(ref)).rejects.toMatchObject({
      code: ErrorCode.DEAD_LETTERED,
      message: expect.stringMatching(/produces more than one commit can hold/),
      details: {
        messageId: letter?.messageId,
        actorId: shelf.id,
        cause: { code: ErrorCode.MESSAGE_TOO_LARGE, details: { message: letter?.messageId } },
      },
    });
    const history = (await h.state(ref.id)) as WorkflowState;
    expect(history.journal[0]).toMatchObject({ kind: 'call', unreplied: true });
    expect(await h.state(shelf.id)).toEqual({ held: {}, reserves: 0, releases: 1 });
    expect(await h.state(Stocklog.ref('kettle').id)).toBeUndefined();
    // Kept whole, to redrive once the fix is deployed (or purge, as the saga undid it).
    expect(await h.backend.store.listDeadLetters(shelf.id)).toMatchObject([
      { envelope: { name: 'reserve', payload: { qty: 3 } }, redrivable: true },
    ]);
  });

  it('was applied, its reply too large to journal: released, the failure saying it was applied', async () => {
    outage.on = false;
    wordy.on = true;
    const h = workflowHarness([Order.actor, Shelf]);
    const ref = await h.client.start(Order, 'o-5', {});
    await h.runAll();
    wordy.on = false;
    await expect(h.client.result(ref)).rejects.toMatchObject({
      code: ErrorCode.MESSAGE_TOO_LARGE,
      message: expect.stringMatching(/though the actor applied it/),
      details: { applied: true },
    });
    const history = (await h.state(ref.id)) as WorkflowState;
    expect(history.journal[0]).toMatchObject({ kind: 'call', unreplied: true });
    expect(await h.state(shelf.id)).toEqual({ held: {}, reserves: 1, releases: 1 });
  });

  it('that the actor refused is not compensated: it was not applied', async () => {
    const Strict = workflow({
      name: 'strict',
      input: z.object({}),
      retentionMs: Number.POSITIVE_INFINITY,
      run: async (ctx) => {
        await ctx.call(
          shelf,
          'reserve',
          { orderId: ctx.id, qty: 1000 },
          { compensate: (_, saga) => saga.call(shelf, 'release', { orderId: ctx.id }) },
        );
      },
    });
    outage.on = false;
    const h = workflowHarness([Strict.actor, Shelf]);
    const ref = await h.client.start(Strict, 's-1', {});
    await h.runAll();
    await expect(h.client.result(ref)).rejects.toMatchObject({ code: ErrorCode.REJECTED });
    expect(await h.state(shelf.id)).toEqual({ held: {}, reserves: 0, releases: 0 });
  });
});
