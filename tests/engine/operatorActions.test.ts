/**
 * What an operator does outside an actor's turns (`baton timers cancel`, `baton dead-letters
 * purge`): one commit on the record's version each, so a cancelled timer never fires and a
 * purged dead letter is never applied — and neither touches what else the actor holds.
 */

import { execFileSync } from 'node:child_process';
import { type AskReply, actor, ErrorCode, RetryableError } from '@baton/core';
import { type Commit, decodeEnvelope, type Store } from '@baton/core/adapter';
import {
  cancelTimer,
  commandLine,
  endFailingMessage,
  type FollowUp,
  fireDueTimers,
  pauseActor,
  purgeDeadLetter,
  redriveDeadLetter,
  resumeActor,
} from '@baton/core/engine';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { racingReadTimer, setup } from './helpers.ts';

/** The words a shell makes of `line`: the arguments a command pasted as `line` is given. */
const shellWords = (line: string) =>
  execFileSync('sh', ['-c', `printf '%s\\0' ${line}`], { encoding: 'utf8' })
    .split('\0')
    .slice(0, -1);

const faults = { failing: true };

const Alarm = actor({
  name: 'alarm',
  state: z.object({ rang: z.array(z.string()) }),
  initial: () => ({ rang: [] as string[] }),
  handlers: {
    set: {
      payload: z.object({ id: z.string(), delay: z.number() }),
      handle: (ctx, { id, delay }) => {
        ctx.schedule(delay, 'ring', { note: id }, { id });
      },
    },
    ring: {
      payload: z.object({ note: z.string() }),
      handle: (ctx, { note }) => {
        if (note === 'broken' && faults.failing) throw new RetryableError('broken bell');
        ctx.state.rang.push(note);
      },
    },
  },
});

const rang = async (h: ReturnType<typeof setup>) =>
  ((await h.state('alarm/a')) as { rang: string[] } | undefined)?.rang ?? [];

describe('operator actions', () => {
  it('cancels one pending timer: it never fires, and the actor’s other timer does', async () => {
    const h = setup({ actors: [Alarm] });
    await h.client.send(Alarm.ref('a'), 'set', { id: 'tea', delay: 60_000 });
    await h.client.send(Alarm.ref('a'), 'set', { id: 'nap', delay: 60_000 });
    await h.run();
    await cancelTimer(h.backend.store, 'alarm/a', 'tea', { by: 'test' });
    await expect(cancelTimer(h.backend.store, 'alarm/a', 'tea', { by: 'test' })).rejects.toThrow(
      /has no pending timer tea: it fired or was cancelled/,
    );
    h.clock.advance(61_000);
    await fireDueTimers(h.engine, h.clock.now());
    await h.run();
    expect(await rang(h)).toEqual(['nap']);
    expect(await h.backend.store.listTimers('alarm/a')).toEqual([]);
  });

  /** Alarm `a` with timer `tea` set, paused, then its fire parked. */
  async function teaParked() {
    const h = setup({ actors: [Alarm] });
    await h.client.send(Alarm.ref('a'), 'set', { id: 'tea', delay: 60_000 });
    await h.run();
    await pauseActor(h.backend.store, h.backend.queue, 'alarm/a', { by: 'ops' });
    h.clock.advance(61_000);
    await fireDueTimers(h.engine, h.clock.now());
    await h.run();
    return h;
  }

  it('cancels a timer whose fire is parked at its paused actor: resumed, the fire applies nothing', async () => {
    const h = await teaParked();
    // Parked, the fire keeps its timer, due no more.
    expect(await h.backend.store.listTimers('alarm/a')).toMatchObject([
      { id: 'tea', deadLettered: true },
    ]);
    await cancelTimer(h.backend.store, 'alarm/a', 'tea', { by: 'ops' });
    await expect(cancelTimer(h.backend.store, 'alarm/a', 'tea', { by: 'ops' })).rejects.toThrow(
      /has no pending timer tea: it fired or was cancelled/,
    );
    await resumeActor(h.backend.store, h.backend.queue, 'alarm/a', { by: 'ops' });
    await h.run();
    expect(await rang(h)).toEqual([]);
    expect(await h.backend.store.listDeadLetters('alarm/a')).toEqual([]);
  });

  it('refuses to cancel a timer whose fire an earlier release parked (its timer removed), saying it is applied on resume', async () => {
    const h = await teaParked();
    const [kept] = await h.backend.store.listDeadLetters('alarm/a');
    // As an earlier release parked a fire: the letter names no timer, and the timer is gone.
    const { timer: _, ...legacy } = kept!;
    const record = (await h.backend.store.load('alarm/a'))!;
    await h.backend.store.commit({
      expectedVer: record.ver,
      record: { ...record, ver: record.ver + 1 },
      outbox: [],
      idempotency: [],
      deadLetters: { put: [legacy], remove: [] },
      timers: { put: [], remove: ['tea'] },
    });
    const refused = await cancelTimer(h.backend.store, 'alarm/a', 'tea', { by: 'ops' }).catch(
      (e: unknown) => e,
    );
    expect(refused).toMatchObject({
      code: ErrorCode.INVALID_STATE,
      message: `timer tea of alarm/a fired while alarm/a was paused: its fire (message ${legacy.messageId}) is parked, and is applied, in order, when alarm/a is resumed (baton actors resume alarm/a); a parked fire cannot be cancelled: to keep it from being applied, deploy code whose handler leaves it be, then resume alarm/a`,
      details: { actorId: 'alarm/a', timerId: 'tea', parked: 1 },
    });
    await resumeActor(h.backend.store, h.backend.queue, 'alarm/a', { by: 'ops' });
    await h.run();
    expect(await rang(h)).toEqual(['tea']);
  });

  it('refuses to cancel an ask’s timeout, which holds the asker’s continuation, saying what to do instead', async () => {
    const Stock = actor({
      name: 'stock',
      state: z.object({}),
      initial: () => ({}),
      handlers: { reserve: { payload: z.object({}), handle: () => 1 } },
    });
    const Shop = actor({
      name: 'shop',
      state: z.object({ replies: z.number() }),
      initial: () => ({ replies: 0 }),
      handlers: {
        buy: {
          payload: z.object({}),
          handle: (ctx) => {
            ctx.ask(Stock.ref('s'), 'reserve', {}, { onReply: 'reserved', timeoutMs: 60_000 });
          },
        },
        reserved: {
          payload: z.custom<AskReply<number>>(),
          handle: (ctx) => {
            ctx.state.replies++;
          },
        },
      },
    });
    const h = setup({ actors: [Shop, Stock] });
    // The stock is paused: the reserve waits, and so does the shop's continuation.
    await pauseActor(h.backend.store, h.backend.queue, 'stock/s', { by: 'ops' });
    await h.client.send(Shop.ref('a'), 'buy', {});
    await h.run();
    const [timeout] = await h.backend.store.listTimers('shop/a');
    await expect(
      cancelTimer(h.backend.store, 'shop/a', timeout!.id, { by: 'ops' }),
    ).rejects.toMatchObject({
      code: ErrorCode.INVALID_ARGUMENT,
      message: expect.stringMatching(
        /is the timeout of shop\/a's ask of "reserve" to stock\/s: .* It was not cancelled\. .*baton actors resume stock\/s/,
      ),
    });
    expect(await h.backend.store.listTimers('shop/a')).toHaveLength(1);
  });

  it('cancels an app’s own timer whose id begins as an ask’s timeout does', async () => {
    // "ask:ann": the app's reminder to ask a user for feedback, no ask's timeout.
    const h = setup({ actors: [Alarm] });
    await h.client.send(Alarm.ref('a'), 'set', { id: 'ask:ann', delay: 60_000 });
    await h.run();
    await cancelTimer(h.backend.store, 'alarm/a', 'ask:ann', { by: 'test' });
    expect(await h.backend.store.listTimers('alarm/a')).toEqual([]);
  });

  it('refuses to cancel a timer that fires while it reads: the fire is applied, once', async () => {
    const h = setup({ actors: [Alarm] });
    await h.client.send(Alarm.ref('a'), 'set', { id: 'tea', delay: 60_000 });
    await h.run();
    const store = racingReadTimer(h.backend.store, async () => {
      h.clock.advance(61_000);
      await fireDueTimers(h.engine, h.clock.now());
      await h.run();
    });
    await expect(cancelTimer(store, 'alarm/a', 'tea', { by: 'test' })).rejects.toMatchObject({
      code: ErrorCode.NOT_FOUND,
    });
    expect(await rang(h)).toEqual(['tea']);
  });

  it('purges one dead letter: it is never applied, not even by a redrive, and the other is kept', async () => {
    faults.failing = true;
    const h = setup({ actors: [Alarm], maxAttempts: 2 });
    await h.client.send(Alarm.ref('a'), 'ring', { note: 'broken' });
    await h.client.send(Alarm.ref('a'), 'ring', { note: 'broken' });
    await h.run();
    const [first, second, ...rest] = await h.backend.store.listDeadLetters('alarm/a');
    expect(rest).toEqual([]);
    await purgeDeadLetter(h.backend.store, 'alarm/a', first!.messageId, { by: 'test' });
    await expect(
      redriveDeadLetter(h.backend.store, h.backend.queue, 'alarm/a', first!.messageId),
    ).rejects.toThrow(/keeps no dead letter/);
    faults.failing = false;
    await redriveDeadLetter(h.backend.store, h.backend.queue, 'alarm/a', second!.messageId);
    await h.run();
    expect(await rang(h)).toEqual(['broken']);
    expect(await h.backend.store.listDeadLetters()).toEqual([]);
  });

  it('keeps a timer whose fire was dead-lettered, never due again, until a redrive applies it once', async () => {
    faults.failing = true;
    const h = setup({ actors: [Alarm], maxAttempts: 2 });
    await h.client.send(Alarm.ref('a'), 'set', { id: 'broken', delay: 1_000 });
    await h.run();
    h.clock.advance(1_000);
    expect(await fireDueTimers(h.engine, h.clock.now())).toBe(1);
    await h.run();

    const [letter, ...others] = await h.backend.store.listDeadLetters('alarm/a');
    expect(others).toEqual([]);
    expect(letter).toMatchObject({ attempts: 2, envelope: { name: 'ring' } });
    expect(await h.backend.store.listTimers('alarm/a')).toMatchObject([
      { id: 'broken', deadLettered: true },
    ]);
    h.clock.advance(60_000);
    expect(await fireDueTimers(h.engine, h.clock.now())).toBe(0);

    faults.failing = false;
    await redriveDeadLetter(h.backend.store, h.backend.queue, 'alarm/a', letter!.messageId);
    await h.run();
    expect(await rang(h)).toEqual(['broken']);
    expect(await h.backend.store.listTimers('alarm/a')).toEqual([]);
  });

  it('purges the dead letter of an earlier scheduling of a timer, and keeps the later one’s timer', async () => {
    faults.failing = true;
    const h = setup({ actors: [Alarm], maxAttempts: 2 });
    for (const _scheduling of [1, 2]) {
      await h.client.send(Alarm.ref('a'), 'set', { id: 'broken', delay: 1_000 });
      await h.run();
      h.clock.advance(1_000);
      expect(await fireDueTimers(h.engine, h.clock.now())).toBe(1);
      await h.run();
    }
    const [earlier, later, ...rest] = await h.backend.store.listDeadLetters('alarm/a');
    expect(rest).toEqual([]);
    expect(earlier!.timer!.gen).not.toBe(later!.timer!.gen);
    const [timer] = await h.backend.store.listTimers('alarm/a');
    expect(timer).toMatchObject({ id: 'broken', deadLettered: true, gen: later!.timer!.gen });

    await purgeDeadLetter(h.backend.store, 'alarm/a', earlier!.messageId, { by: 'test' });
    expect(await h.backend.store.listTimers('alarm/a')).toEqual([timer]);
    faults.failing = false;
    await redriveDeadLetter(h.backend.store, h.backend.queue, 'alarm/a', later!.messageId);
    await h.run();
    expect(await rang(h)).toEqual(['broken']);
    expect(await h.backend.store.listTimers('alarm/a')).toEqual([]);
  });

  it('keeps a redriven message that fails again as one dead letter, of its latest failure, until a redrive applies it', async () => {
    faults.failing = true;
    const h = setup({ actors: [Alarm], maxAttempts: 2 });
    const { messageId } = await h.client.send(Alarm.ref('a'), 'ring', { note: 'broken' });
    await h.run();
    const failed = await h.client.outcome(messageId);
    expect(failed).toMatchObject({ ok: false, error: { code: 'DEAD_LETTERED' } });

    // Redriven with the bell still broken: it fails its attempts again.
    h.clock.advance(60_000);
    await redriveDeadLetter(h.backend.store, h.backend.queue, 'alarm/a', messageId);
    await h.run();
    const [again, ...others] = await h.backend.store.listDeadLetters('alarm/a');
    expect(others).toEqual([]);
    expect(again).toMatchObject({ messageId, attempts: 2, redrivable: true, at: h.clock.now() });
    expect(await rang(h)).toEqual([]);

    faults.failing = false;
    await redriveDeadLetter(h.backend.store, h.backend.queue, 'alarm/a', messageId);
    await h.run();
    expect(await rang(h)).toEqual(['broken']);
    expect(await h.client.outcome(messageId)).toEqual({ ok: true, value: undefined });
    expect(await h.backend.store.listDeadLetters()).toEqual([]);
  });

  it('commits again on the record a turn committed meanwhile, gives up after 16 conflicts, and retries no other failure', async () => {
    const h = setup({ actors: [Alarm] });
    await h.client.send(Alarm.ref('a'), 'set', { id: 'tea', delay: 60_000 });
    await h.run();
    // A store whose next `racing` commits lose to a turn that commits first.
    let racing = 2;
    const commits: number[] = [];
    const store = new Proxy(h.backend.store, {
      get: (target, name) => {
        if (name === 'commit') {
          return async (commit: Commit) => {
            commits.push(commit.expectedVer);
            if (racing-- > 0) {
              const current = (await target.load('alarm/a'))!;
              await target.commit({
                expectedVer: current.ver,
                record: { ...current, ver: current.ver + 1 },
                outbox: [],
                idempotency: [],
              });
            }
            return target.commit(commit);
          };
        }
        const value: unknown = Reflect.get(target, name);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    }) as Store;
    await cancelTimer(store, 'alarm/a', 'tea', { by: 'test' });
    expect(commits).toEqual([1, 2, 3]);
    expect(await h.backend.store.listTimers('alarm/a')).toEqual([]);

    await h.client.send(Alarm.ref('a'), 'set', { id: 'nap', delay: 60_000 });
    await h.run();
    racing = 100;
    commits.length = 0;
    await expect(cancelTimer(store, 'alarm/a', 'nap', { by: 'test' })).rejects.toMatchObject({
      code: ErrorCode.VERSION_CONFLICT,
    });
    expect(commits).toHaveLength(16);

    // Any other failure is the operator's to see at once: retrying it here would only hide it.
    const down = new Proxy(h.backend.store, {
      get: (target, name) => {
        if (name === 'commit') {
          return async (commit: Commit) => {
            commits.push(commit.expectedVer);
            throw new Error('the table is unreachable');
          };
        }
        const value: unknown = Reflect.get(target, name);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    }) as Store;
    commits.length = 0;
    await expect(cancelTimer(down, 'alarm/a', 'nap', { by: 'test' })).rejects.toThrow(
      'the table is unreachable',
    );
    expect(commits).toHaveLength(1);
    expect(await h.backend.store.listTimers('alarm/a')).toMatchObject([{ id: 'nap' }]);
  });

  it('wakes a paused or resumed actor with a message that names the record it changed, and a resume of an actor with no record sends nothing', async () => {
    const h = setup({ actors: [Alarm] });
    const sent = () => h.backend.queue.messages().map((m) => decodeEnvelope(m.body));
    await resumeActor(h.backend.store, h.backend.queue, 'alarm/a', { by: 'test' });
    expect(sent()).toEqual([]);
    const paused = await pauseActor(h.backend.store, h.backend.queue, 'alarm/a', {
      by: 'ops',
      now: 5,
    });
    expect(paused.paused).toEqual({ at: 5, by: 'ops' });
    // An actor never committed is paused on a fresh record: no state, inbox at its start.
    expect(paused).toMatchObject({ ver: 1, state: null, inboxOffset: '0', marks: {} });
    const id = `operator:alarm/a:${paused.life}:1`;
    expect(sent()).toEqual([
      expect.objectContaining({ id, from: 'ingress', to: 'alarm/a', name: '$wake', redrive: 5 }),
    ]);
    await resumeActor(h.backend.store, h.backend.queue, 'alarm/a', { by: 'ops', now: 6 });
    expect(sent().map((e) => e?.id)).toEqual([id, `operator:alarm/a:${paused.life}:2`]);
    expect((await h.backend.store.load('alarm/a'))?.paused).toBeUndefined();
    // Resumed again: woken again under the same id, which the queue takes once (a wake that
    // went out is not sent twice; one that was lost goes now).
    await resumeActor(h.backend.store, h.backend.queue, 'alarm/a', { by: 'ops', now: 7 });
    expect(sent().map((e) => e?.id)).toEqual([id, `operator:alarm/a:${paused.life}:2`]);
  });

  it('refuses to purge a letter the actor does not keep, naming it, and a parked message, saying it is parked', async () => {
    const h = setup({ actors: [Alarm] });
    await pauseActor(h.backend.store, h.backend.queue, 'alarm/a', { by: 'ops' });
    await h.client.send(Alarm.ref('a'), 'set', { id: 'tea', delay: 1 });
    await h.run();
    const parked = (await h.backend.store.listDeadLetters('alarm/a')).find(
      (letter) => letter.parked !== undefined,
    );
    const purge = (messageId: string) =>
      purgeDeadLetter(h.backend.store, 'alarm/a', messageId, { by: 't' }).catch((e: unknown) => e);
    expect(await purge('nope')).toMatchObject({
      code: ErrorCode.NOT_FOUND,
      message:
        'alarm/a keeps no dead letter nope: it was redriven or purged already, or never dead-lettered; list them with baton dead-letters list',
      details: { actorId: 'alarm/a', messageId: 'nope' },
    });
    const messageId = parked!.messageId;
    const refused = {
      code: ErrorCode.INVALID_STATE,
      details: { actorId: 'alarm/a', messageId, parked: 1 },
    };
    expect(await purge(messageId)).toMatchObject({
      ...refused,
      message: `message ${messageId} is parked at alarm/a, which is paused, not dead-lettered: it is applied, in order, when alarm/a is resumed, and a parked message cannot be purged; to keep it from being applied, deploy code whose handler leaves it be, then resume alarm/a`,
    });
    expect(
      await redriveDeadLetter(h.backend.store, h.backend.queue, 'alarm/a', messageId).catch(
        (e: unknown) => e,
      ),
    ).toMatchObject({
      ...refused,
      message: `message ${messageId} is parked at alarm/a, which is paused, not dead-lettered: it is applied, in order, when alarm/a is resumed, and a parked message cannot be redriven; resume alarm/a to apply it (baton actors resume alarm/a)`,
    });
    expect(await h.backend.store.readDeadLetter('alarm/a', messageId)).toMatchObject({ parked: 1 });
    const missing = await cancelTimer(h.backend.store, 'alarm/a', 'nope', { by: 't' }).catch(
      (e: unknown) => e,
    );
    expect(missing).toMatchObject({ details: { actorId: 'alarm/a', timerId: 'nope' } });

    // A caller's follow-up renderer (the CLI's adds its target options) names each next command.
    const followUp: FollowUp = (command, ...operands) =>
      `baton ${commandLine(command, ...operands)} --stack Prod`;
    const named = async (action: Promise<unknown>) =>
      ((await action.catch((e: unknown) => e)) as Error).message;
    expect(
      await named(purgeDeadLetter(h.backend.store, 'alarm/a', 'nope', { by: 't', followUp })),
    ).toMatch(/list them with baton dead-letters list --stack Prod$/);
    expect(
      await named(
        redriveDeadLetter(h.backend.store, h.backend.queue, 'alarm/a', messageId, { followUp }),
      ),
    ).toMatch(/resume alarm\/a to apply it \(baton actors resume alarm\/a --stack Prod\)$/);
    expect(
      await named(cancelTimer(h.backend.store, 'alarm/a', 'nope', { by: 't', followUp })),
    ).toMatch(/list them with baton timers list alarm\/a --stack Prod$/);
  });

  it('ends the message failing at the head: kept as a dead letter at its next delivery without a run, the messages behind it applied, the ask told', async () => {
    faults.failing = true;
    const h = setup({ actors: [Alarm], maxAttempts: 3 });
    const { store, queue } = h.backend;
    const asked = h.client
      .ask(Alarm.ref('a'), 'ring', { note: 'broken' }, { timeoutMs: 600_000 })
      .catch((e: unknown) => e);
    // The ask enqueues its message once its checks are done: poll until it has failed once.
    while (!(await h.record('alarm/a'))?.failing) await h.worker.poll();
    const failing = (await h.record('alarm/a'))!.failing!;
    expect(failing).toMatchObject({ attempts: 1, handler: 'ring' });
    const messageId = failing.id;
    await h.client.send(Alarm.ref('a'), 'ring', { note: 'tea' });

    const end = (id: string) =>
      endFailingMessage(store, 'alarm/a', id, { by: 'ops', now: h.clock.now() });
    // Not the failing message: refused, naming the one failing.
    expect(await end('nope').catch((e: unknown) => e)).toMatchObject({
      code: ErrorCode.NOT_FOUND,
      message: expect.stringContaining(
        `message nope is not failing at the head of alarm/a's inbox: the message failing there is ${messageId} (handler "ring" failed 1 time(s) since `,
      ),
      details: { actorId: 'alarm/a', messageId: 'nope', failing: messageId },
    });
    // A pause would park it, its handler to run again from its first attempt: refused.
    const pause = (force?: boolean) =>
      pauseActor(store, queue, 'alarm/a', { by: 'ops', ...(force ? { force } : {}) });
    expect(await pause().catch((e: unknown) => e)).toMatchObject({
      code: ErrorCode.INVALID_STATE,
      message: expect.stringContaining(
        `alarm/a was not paused: message ${messageId} is failing at the head of its inbox (handler "ring" failed 1 time(s)`,
      ),
      details: { actorId: 'alarm/a', messageId, attempts: 1, ended: false },
    });
    expect(((await pause().catch((e: unknown) => e)) as Error).message).toContain(
      `and a pause would park it at its next delivery and drop its count, so its handler would run again from its first attempt once resumed. The messages behind it wait already: to stop its handler running again, end it (baton actors end-failing alarm/a '${messageId}'). To pause it all the same, or if the message left the inbox (the inbox's dead-letter queue took it: baton queue-dead-letters list), pass --force (pauseActor's force)`,
    );
    expect((await h.record('alarm/a'))?.paused).toBeUndefined();
    // Paused all the same, its next delivery parks it: the end would be lost.
    await pause(true);
    expect(await end(messageId).catch((e: unknown) => e)).toMatchObject({
      code: ErrorCode.INVALID_STATE,
      message: expect.stringMatching(
        /^alarm\/a is paused: .* Resume it \(baton actors resume alarm\/a\)/,
      ),
      details: { actorId: 'alarm/a', messageId },
    });
    await resumeActor(store, queue, 'alarm/a', { by: 'ops' });

    // Not a dead letter yet: redrive and purge say how to end it instead.
    const notYet = {
      code: ErrorCode.INVALID_STATE,
      details: { actorId: 'alarm/a', messageId, failing: true, attempts: 1 },
    };
    const refusal = (action: Promise<unknown>) => action.catch((e: unknown) => e);
    const hint = `to end it now, without running its handler again: baton actors end-failing alarm/a '${messageId}'`;
    expect(await refusal(redriveDeadLetter(store, queue, 'alarm/a', messageId))).toMatchObject({
      ...notYet,
      message: expect.stringContaining(hint),
    });
    expect(await refusal(purgeDeadLetter(store, 'alarm/a', messageId, { by: 't' }))).toMatchObject({
      ...notYet,
      message: expect.stringContaining(hint),
    });

    const ended = await end(messageId);
    expect(ended).toEqual({ ...failing, ended: { at: h.clock.now(), by: 'ops' } });
    h.clock.advance(1_000);
    // Ended already: nothing changes.
    expect(await end(messageId)).toEqual(ended);
    expect(await refusal(purgeDeadLetter(store, 'alarm/a', messageId, { by: 't' }))).toMatchObject({
      ...notYet,
      message: expect.stringContaining('an operator ended it already (ops, at '),
    });
    // Nor is it paused before the end takes effect, which the pause would drop.
    expect(await pause().catch((e: unknown) => e)).toMatchObject({
      code: ErrorCode.INVALID_STATE,
      message: expect.stringMatching(
        /an operator ended it \(ops, at [^)]+\), and its next delivery keeps it as a dead letter without running its handler; a pause would park it at that delivery instead, dropping the end, and its handler would run again once resumed\. Let the end take effect first \(baton actors get alarm\/a shows no failing message then\), then pause\./,
      ),
      details: { ended: true },
    });

    await h.run();
    // Kept without another run; the message behind it applied; the ask told.
    expect(await rang(h)).toEqual(['tea']);
    expect((await h.record('alarm/a'))?.failing).toBeUndefined();
    const [letter, ...others] = await store.listDeadLetters('alarm/a');
    expect(others).toEqual([]);
    expect(letter).toMatchObject({
      messageId,
      attempts: 1,
      redrivable: true,
      error: {
        code: ErrorCode.DEAD_LETTERED,
        details: { attempts: 1, cause: { code: ErrorCode.RETRYABLE, message: 'broken bell' } },
      },
    });
    expect(await asked).toMatchObject({ code: ErrorCode.DEAD_LETTERED, details: { attempts: 1 } });

    // Fixed, its letter is redriven as any other (its asker was told: with force) and applied once.
    faults.failing = false;
    await redriveDeadLetter(store, queue, 'alarm/a', messageId, { force: true });
    await h.run();
    expect(await rang(h)).toEqual(['tea', 'broken']);
    expect(await store.listDeadLetters('alarm/a')).toEqual([]);
  });

  it('ends only the message it names: none failing is refused, and a mark left by a message gone from the queue ends nothing else', async () => {
    faults.failing = false;
    const h = setup({ actors: [Alarm], maxAttempts: 3 });
    const { store } = h.backend;
    await h.client.send(Alarm.ref('a'), 'ring', { note: 'tea' });
    await h.run();
    expect(
      await endFailingMessage(store, 'alarm/a', 'nope', { by: 'ops' }).catch((e: unknown) => e),
    ).toMatchObject({
      code: ErrorCode.NOT_FOUND,
      message: expect.stringContaining(
        "message nope is not failing at the head of alarm/a's inbox: none is failing there",
      ),
    });
    // A worker that dies on a message records no failure: the refusal says what holds it.
    expect(
      await endFailingMessage(store, 'alarm/a', 'nope', { by: 'ops' }).catch((e: unknown) => e),
    ).toMatchObject({
      message: expect.stringContaining(
        'or a worker dies or times out on it, which records no failure (its log says: Task timed out; baton actors pause alarm/a holds',
      ),
      details: { actorId: 'alarm/a', messageId: 'nope', failing: null },
    });
    // The ended message left the queue another way (SQS moved it to its dead-letter queue after
    // its last receive): the mark stays on the record until the inbox moves on.
    const record = (await h.record('alarm/a'))!;
    const ended = { at: h.clock.now(), by: 'ops' };
    const gone = { id: 'gone', at: record.inboxOffset, attempts: 2, ended };
    await store.commit({
      record: { ...record, ver: record.ver + 1, failing: gone },
      expectedVer: record.ver,
      outbox: [],
      idempotency: [],
    });
    await h.client.send(Alarm.ref('a'), 'ring', { note: 'cake' });
    await h.run();
    expect(await rang(h)).toEqual(['tea', 'cake']);
    expect(await store.listDeadLetters('alarm/a')).toEqual([]);
    expect((await h.record('alarm/a'))?.failing).toBeUndefined();

    // A count kept without its error (no room for it): the letter says an operator ended it.
    faults.failing = true;
    await h.client.send(Alarm.ref('a'), 'ring', { note: 'broken' });
    await h.worker.poll();
    const counted = (await h.record('alarm/a'))!;
    const { error: _, handler: __, ...count } = counted.failing!;
    await store.commit({
      record: { ...counted, ver: counted.ver + 1, failing: { ...count, ended } },
      expectedVer: counted.ver,
      outbox: [],
      idempotency: [],
    });
    await h.run();
    const [letter] = await store.listDeadLetters('alarm/a');
    expect(letter?.error.details?.cause).toMatchObject({
      code: ErrorCode.RETRYABLE,
      message: 'ended by an operator',
    });
    expect(await rang(h)).toEqual(['tea', 'cake']);
  });

  it('names an actor whose key holds shell characters quoted in its hints, so a shell passes the id back unchanged', async () => {
    const h = setup({ actors: [Alarm] });
    const key = `it's a $(x)`;
    const id = `alarm/${key}`;
    await pauseActor(h.backend.store, h.backend.queue, id, { by: 'ops' });
    await h.client.send(Alarm.ref(key), 'set', { id: 'tea', delay: 1 });
    await h.run();
    const [parked] = await h.backend.store.listDeadLetters(id);
    const message = async (action: Promise<unknown>) =>
      ((await action.catch((e: unknown) => e)) as Error).message;
    /** The `baton …` command a message ends with, in `(…)` or bare. */
    const hintOf = (text: string) =>
      text.slice(text.lastIndexOf('baton '), text.endsWith(')') ? -1 : undefined);
    const redrive = redriveDeadLetter(h.backend.store, h.backend.queue, id, parked!.messageId);
    const resume = hintOf(await message(redrive));
    expect(resume).toBe(`baton actors resume 'alarm/it'\\''s a $(x)'`);
    expect(shellWords(resume)).toEqual(['baton', 'actors', 'resume', id]);
    const list = hintOf(await message(cancelTimer(h.backend.store, id, 'nope', { by: 't' })));
    expect(shellWords(list)).toEqual(['baton', 'timers', 'list', id]);
    // A plain id reads as is.
    expect(await message(cancelTimer(h.backend.store, 'alarm/a', 'nope', { by: 't' }))).toMatch(
      /list them with baton timers list alarm\/a$/,
    );
  });
});
