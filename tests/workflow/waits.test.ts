/**
 * Workflows that wait: durable sleeps on virtual time, events that arrive before or after the
 * wait for them (each consumed once), timeouts, races, and callbacks completed from outside.
 */
import { ErrorCode, type WorkflowState, workflow } from '@baton/core';
import { WAIT_BEHIND_LOG } from '@baton/core/engine';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { recordingLogger, settled } from '../engine/helpers.ts';
import { workflowHarness } from './harness.ts';

const DAY = 24 * 60 * 60 * 1000;

describe('waiting in a workflow', () => {
  it('sleeps 30 days on a durable timer that fires once, in virtual time', async () => {
    let woke = 0;
    const Sleeper = workflow({
      name: 'sleeper',
      input: z.object({}),
      run: async (ctx) => {
        const before = ctx.now();
        await ctx.sleep(30 * DAY);
        await ctx.step('wake', () => ++woke);
        return ctx.now() - before;
      },
    });
    const h = workflowHarness([Sleeper.actor]);
    const ref = await h.client.start(Sleeper, 's', {});
    await h.runAll({ until: h.clock.now() + DAY });
    expect(await h.client.workflowStatus(ref)).toMatchObject({ status: 'waiting' });

    await h.runAll();
    expect(await h.client.result(ref)).toBe(30 * DAY);
    expect(woke).toBe(1);
  });

  it('keeps an event that arrives before its wait and consumes each event once', async () => {
    const Inbox = workflow({
      name: 'inbox',
      input: z.object({}),
      run: async (ctx) => {
        await ctx.sleep(DAY);
        const first = await ctx.waitForEvent<number>('item');
        const second = await ctx.waitForEvent<number>('item');
        const third = await ctx.waitForEvent<number>('item');
        return [first, second, third];
      },
    });
    const h = workflowHarness([Inbox.actor]);
    const ref = await h.client.start(Inbox, 'i', {});
    await h.runAll({ until: h.clock.now() });
    // Both arrive while the run sleeps: kept, in order.
    await h.client.signal(ref, 'item', 1);
    await h.client.signal(ref, 'item', 2);
    await h.runAll();
    expect(await h.client.workflowStatus(ref)).toMatchObject({ status: 'waiting' });
    await h.client.signal(ref, 'item', 3);
    await h.runAll();

    expect(await h.client.result(ref)).toEqual([1, 2, 3]);
    expect(((await h.state(ref.id)) as { signals: unknown[] }).signals).toEqual([]);
  });

  it('keeps at most 128 KiB of events ahead of their waits, refusing the next one with LIMIT_EXCEEDED', async () => {
    const Slow = workflow({
      name: 'slow',
      input: z.object({}),
      run: async (ctx) => {
        await ctx.sleep(DAY);
        const events: string[] = [];
        for (let n = 0; n < 3; n++) events.push(await ctx.waitForEvent<string>('chunk'));
        return events.map((event) => event.length);
      },
    });
    const h = workflowHarness([Slow.actor]);
    const ref = await h.client.start(Slow, 's', {});
    await h.runAll({ until: h.clock.now() });
    // 40 KB each: three fit beside each other, a fourth does not.
    const chunk = 'x'.repeat(40_000);
    const sent = [];
    for (let n = 0; n < 4; n++) sent.push(await h.client.signal(ref, 'chunk', chunk));
    await h.run();
    const outcomes = await Promise.all(sent.map(({ messageId }) => h.client.outcome(messageId)));
    expect(outcomes.slice(0, 3).every((outcome) => outcome?.ok)).toBe(true);
    expect(outcomes[3]).toMatchObject({
      ok: false,
      error: {
        code: ErrorCode.LIMIT_EXCEEDED,
        message: expect.stringMatching(/already holds 3 events .* that no wait has taken/),
      },
    });
    // The three kept are taken by the waits to come.
    await h.runAll();
    expect(await h.client.result(ref)).toEqual([40_000, 40_000, 40_000]);
  });

  it('fails a wait past its timeout with TIMED_OUT, which the run may catch', async () => {
    const Approval = workflow({
      name: 'approval',
      input: z.object({}),
      run: async (ctx) => {
        try {
          return await ctx.waitForEvent('approved', { timeoutMs: 3 * DAY });
        } catch (error) {
          return (error as { code: string }).code;
        }
      },
    });
    const h = workflowHarness([Approval.actor]);
    const late = await h.client.start(Approval, 'late', {});
    const early = await h.client.start(Approval, 'early', {});
    await h.runAll({ until: h.clock.now() });
    await h.client.signal(early, 'approved', 'yes');
    await h.runAll();

    expect(await h.client.result(early)).toBe('yes');
    expect(await h.client.result(late)).toBe(ErrorCode.TIMED_OUT);
    // The early one's timeout was cancelled with the event: no timer of it is left.
    expect(await h.backend.store.listTimers(early.id)).toEqual([
      expect.objectContaining({ id: 'wf:expire' }),
    ]);
  });

  it('races an event against a sleep: the loser is cancelled and consumes nothing later', async () => {
    const Race = workflow({
      name: 'race',
      input: z.object({}),
      run: async (ctx) => {
        const first = await ctx.race([ctx.waitForEvent('go'), ctx.sleep(DAY)]);
        const second = await ctx.race([ctx.waitForEvent('go'), ctx.sleep(DAY)]);
        const after = await ctx.waitForEvent('go');
        return [first.index, second.index, after];
      },
    });
    const h = workflowHarness([Race.actor]);
    const ref = await h.client.start(Race, 'r', {});
    await h.runAll({ until: h.clock.now() });
    await h.client.signal(ref, 'go', 'a'); // wins the first race
    await h.runAll({ until: h.clock.now() + 2 * DAY }); // the second race's sleep wins
    await h.client.signal(ref, 'go', 'b'); // for the last wait, not the second race's loser
    await h.runAll();

    expect(await h.client.result(ref)).toEqual([0, 1, 'b']);
  });

  it('pauses a run racing a promise it derived from a wait, which the race could not cancel; code racing the wait itself goes on', async () => {
    const approval = (version: string, derived: boolean) =>
      workflow({
        name: 'approval',
        version,
        input: z.object({}),
        retentionMs: Number.POSITIVE_INFINITY,
        run: async (ctx) => {
          const go = ctx.waitForEvent<string>('go');
          const first = await ctx.race([
            derived ? go.then((by) => `approved by ${by}`) : go,
            ctx.sleep(DAY),
          ]);
          const after = await ctx.waitForEvent<string>('go');
          return [first.index, after];
        },
      });
    const wrong = approval('1', true);
    const h = workflowHarness([wrong.actor]);
    const ref = await h.client.start(wrong, 'a-1', {});
    await h.runAll({ until: h.clock.now() + 2 * DAY }); // the sleep ends
    expect(await h.client.workflowStatus(ref)).toMatchObject({
      status: 'paused',
      paused: {
        error: {
          code: ErrorCode.NON_DETERMINISTIC,
          message: expect.stringContaining('passed ctx.race an entry (0) that is not the promise'),
          details: { reason: 'RACE_ENTRY', entry: 0 },
        },
      },
    });

    h.deploy([approval('2', false).actor]);
    await h.client.asSystem().send(ref as never, 'resume' as never, {} as never);
    await h.runAll({ until: h.clock.now() });
    await h.client.signal(ref, 'go', 'bob'); // for the wait after the race, not its loser
    await h.runAll();

    const state = (await h.state(ref.id)) as WorkflowState;
    expect(state.journal.map((e) => [e.seq, e.kind, e.state])).toEqual([
      [0, 'event', 'cancelled'],
      [1, 'sleep', 'done'],
      [2, 'event', 'done'],
    ]);
    expect(await h.client.result(ref)).toEqual([1, 'bob']);
  });

  it('races as it did for a run an earlier release started, which replays as it ran', async () => {
    const Legacy = workflow({
      name: 'legacy',
      input: z.object({}),
      run: async (ctx) => {
        await ctx.waitForEvent('begin');
        const first = await ctx.race([
          ctx.waitForEvent<string>('go').then((by) => `approved by ${by}`),
          ctx.sleep(DAY),
        ]);
        return [first.index, await ctx.waitForEvent<string>('go')];
      },
    });
    const h = workflowHarness([Legacy.actor]);
    const ref = await h.client.start(Legacy, 'l', {});
    await h.runAll({ until: h.clock.now() });
    // The record as an earlier release left it: no `races`.
    await h.rewriteState(ref.id, ({ races: _races, ...state }) => state);
    await h.client.signal(ref, 'begin');
    await h.runAll({ until: h.clock.now() + 2 * DAY }); // the sleep wins
    expect((await h.client.workflowStatus(ref)).status).toBe('waiting');
    // Its losing wait was left pending, as that release left it: it takes the next event.
    await h.client.signal(ref, 'go', 'first');
    await h.client.signal(ref, 'go', 'second');
    await h.runAll();
    expect(await h.client.result(ref)).toEqual([1, 'second']);
  });

  it("pauses a run racing Promise.all's or an async function's promise, and cancels a losing race's own", async () => {
    const racer = (name: string, entry: 'all' | 'async' | 'race') =>
      workflow({
        name,
        input: z.object({}),
        run: async (ctx) => {
          const waits = async () => [await ctx.waitForEvent('a'), await ctx.waitForEvent('b')];
          const first =
            entry === 'all'
              ? Promise.all([ctx.waitForEvent('a'), ctx.waitForEvent('b')])
              : entry === 'async'
                ? waits()
                : ctx.race([ctx.waitForEvent('a'), ctx.waitForEvent('b')]);
          const raced = await ctx.race([first, ctx.sleep(DAY)]);
          return [raced.index, await ctx.waitForEvent('a'), await ctx.waitForEvent('b')];
        },
      });
    const All = racer('all', 'all');
    const Async = racer('async', 'async');
    const Nested = racer('nested', 'race');
    const h = workflowHarness([All.actor, Async.actor, Nested.actor]);
    const refs = [
      await h.client.start(All, 'x', {}),
      await h.client.start(Async, 'x', {}),
      await h.client.start(Nested, 'x', {}),
    ];
    await h.runAll({ until: h.clock.now() + 2 * DAY });
    for (const ref of refs.slice(0, 2)) {
      expect(await h.client.workflowStatus(ref)).toMatchObject({
        status: 'paused',
        paused: { error: { details: { reason: 'RACE_ENTRY', entry: 0 } } },
      });
    }
    // A race is an entry another race cancels: its waits take no later event.
    await h.client.signal(refs[2]!, 'a', 1);
    await h.client.signal(refs[2]!, 'b', 2);
    await h.runAll();
    expect(await h.client.result(refs[2]!)).toEqual([1, 1, 2]);
  });

  it('settles a race of two waits whose events came before them on one, leaving the other event', async () => {
    const Drain = workflow({
      name: 'drain',
      input: z.object({}),
      run: async (ctx) => {
        const items: unknown[] = [];
        for (;;) {
          const next = await ctx.race([ctx.waitForEvent('item'), ctx.waitForEvent('done')]);
          if (next.index === 1) return items;
          items.push(next.value);
        }
      },
    });
    const h = workflowHarness([Drain.actor]);
    const ref = Drain.ref('d');
    // Kept until a wait takes them: each race finds both its events there.
    await h.client.signal(ref, 'item', 1);
    await h.client.signal(ref, 'item', 2);
    await h.client.signal(ref, 'done');
    await h.client.start(Drain, 'd', {});
    await h.runAll();

    expect(await h.client.result(ref)).toEqual([1, 2]);
    const state = (await h.state(ref.id)) as WorkflowState;
    expect(state.signals).toEqual([]);
    // Each race's losing wait was cancelled before it took an event.
    expect(state.journal.filter((e) => e.state === 'done').map((e) => e.value ?? e.name)).toEqual([
      1,
      2,
      'done',
    ]);
  });

  it('warns of a wait for an event while another for it is under way: a Promise.race loser, which takes the event, unread', async () => {
    const HOUR = 60 * 60 * 1000;
    const approval = (name: string, native: boolean) =>
      workflow({
        name,
        input: z.object({}),
        events: { approve: z.object({ by: z.string() }) },
        run: async (ctx) => {
          for (let round = 0; round < 5; round++) {
            const wait = ctx.waitForEvent('approve');
            const nap = ctx.sleep(HOUR);
            // Promise.race cancels nothing: its losing wait goes on waiting.
            const won = native
              ? await Promise.race([wait, nap.then(() => null)])
              : await ctx.race([wait, nap]).then((r) => (r.index === 0 ? r.value : null));
            if (won) return `approved by ${won.by}`;
            await ctx.step('remind', () => round);
          }
          return 'gave up';
        },
      });
    const [native, raced] = [approval('native', true), approval('raced', false)];
    const { logger, lines } = recordingLogger();
    const h = workflowHarness([native.actor, raced.actor], { logger });
    const refs = [await h.client.start(native, 'a', {}), await h.client.start(raced, 'a', {})];
    await h.runAll({ until: h.clock.now() + 1.5 * HOUR }); // one reminder, then the next wait
    for (const ref of refs) await h.client.signal(ref, 'approve', { by: 'ann' });
    await h.runAll();
    // The first round's losing wait took the approval; each round's wait after it was issued
    // with the round before's loser under way, and said so once.
    expect(await h.client.result(refs[0]!)).toBe('gave up');
    const warned = lines.filter((line) => line.message === WAIT_BEHIND_LOG);
    expect(warned).toHaveLength(4);
    expect(warned[0]).toMatchObject({
      level: 'warn',
      fields: { workflow: 'native', event: 'approve', earlier: 0 },
    });
    // ctx.race cancels its losers: the approval after a reminder is taken.
    expect(await h.client.result(refs[1]!)).toBe('approved by ann');
  });

  it('says nothing of a wait issued beside a sleep and a wait for another event', async () => {
    const Beside = workflow({
      name: 'beside',
      input: z.object({}),
      run: async (ctx) => {
        const nap = ctx.sleep(60 * 60 * 1000);
        const other = ctx.waitForEvent('other');
        const approved = await ctx.waitForEvent<{ by: string }>('approve');
        void nap;
        void other;
        return approved.by;
      },
    });
    const { logger, lines } = recordingLogger();
    const h = workflowHarness([Beside.actor], { logger });
    const ref = await h.client.start(Beside, 'b', {});
    await h.runAll({ until: h.clock.now() });
    await h.client.signal(ref, 'approve', { by: 'ann' });
    await h.runAll({ until: h.clock.now() });
    expect(await h.client.result(ref)).toBe('ann');
    expect(lines.filter((line) => line.message === WAIT_BEHIND_LOG)).toEqual([]);
  });

  it('pauses a run racing nothing, saying a race needs an entry', async () => {
    const Empty = workflow({
      name: 'empty',
      input: z.object({}),
      run: async (ctx) => {
        await ctx.race([]);
        return null;
      },
    });
    const h = workflowHarness([Empty.actor]);
    const ref = await h.client.start(Empty, 'e', {});
    await h.runAll({ until: h.clock.now() });
    expect((await h.client.workflowStatus(ref)).paused?.error.message).toContain(
      "ctx.race([...]) needs one or more of ctx's promises to race, got none: a race of nothing would never settle",
    );
  });

  it('arms the timeout of a wait whose event an earlier wait took', async () => {
    const Pair = workflow({
      name: 'pair',
      input: z.object({}),
      run: async (ctx) => {
        const first = ctx.waitForEvent('part');
        const second = ctx.waitForEvent('part', { timeoutMs: DAY });
        const got = [await first];
        try {
          got.push(await second);
        } catch (error) {
          got.push((error as { code: string }).code);
        }
        return got;
      },
    });
    const h = workflowHarness([Pair.actor]);
    const ref = Pair.ref('p');
    await h.client.signal(ref, 'part', 'a');
    const both = Pair.ref('b');
    await h.client.signal(both, 'part', 'a');
    await h.client.signal(both, 'part', 'b');
    for (const { key } of [ref, both]) await h.client.start(Pair, key, {});
    await h.runAll({ until: h.clock.now() });
    // The second wait of "p" found no event left: it waits, on its timeout.
    expect(await h.client.workflowStatus(ref)).toMatchObject({ status: 'waiting' });
    expect((await h.backend.store.listTimers(ref.id)).map((t) => t.id)).toEqual(['wf:1']);
    await h.runAll();

    expect(await h.client.result(ref)).toEqual(['a', ErrorCode.TIMED_OUT]);
    expect(await h.client.result(both)).toEqual(['a', 'b']);
    // A wait that took a kept event armed no timeout: only the expiry is left.
    expect((await h.backend.store.listTimers(both.id)).map((t) => t.id)).toEqual(['wf:expire']);
  });

  it('completes a callback from outside with its token, once', async () => {
    const tokens: string[] = [];
    const Hook = workflow({
      name: 'hook',
      input: z.object({}),
      run: async (ctx) => {
        const callback = ctx.createCallback<{ tracking: string }>('shipped', { timeoutMs: DAY });
        await ctx.step('tell warehouse', () => {
          tokens.push(callback.token);
        });
        return (await callback.result).tracking;
      },
    });
    const h = workflowHarness([Hook.actor]);
    const ref = await h.client.start(Hook, 'h', {});
    await h.runAll({ until: h.clock.now() });
    expect(tokens).toHaveLength(1);
    const [token] = tokens as [string];
    await h.client.completeCallback(token, { value: { tracking: 'T-1' } });
    await h.client.completeCallback(token, { value: { tracking: 'T-2' } });
    await h.runAll();

    expect(await h.client.result(ref)).toBe('T-1');
    // A forged token (another secret) is refused.
    const forged = Buffer.from(JSON.stringify([ref.id, 0, 'guess'])).toString('base64url');
    const answer = settled(
      h.client.ask(ref, 'callback' as never, { token: forged, ok: true } as never),
    );
    await h.runAll();
    expect(await answer).toMatchObject({ ok: false, error: { code: ErrorCode.FORBIDDEN } });
  });
});
