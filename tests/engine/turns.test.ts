import {
  actor,
  ErrorCode,
  isBatonError,
  RetryableError,
  SYSTEM,
  silentLogger,
  TerminalError,
} from '@baton/core';
import {
  type Commit,
  INGRESS,
  ingressMessageId,
  type Store,
  seededRandom,
  versionConflict,
} from '@baton/core/adapter';
import { createEngine, runTurn, type TurnStats, Worker } from '@baton/core/engine';
import { EmbeddedQueue, EmbeddedStore } from '@baton/embedded';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { bank } from './bank.ts';
import { commitsOf, settled, setup } from './helpers.ts';

describe('a turn', () => {
  it('applies deposits and withdrawals once each', async () => {
    const { Account, Audit, runs } = bank();
    const h = setup({ actors: [Account, Audit] });
    const alice = Account.ref('alice');
    await h.client.send(alice, 'deposit', { amount: 50 });
    await h.client.send(alice, 'withdraw', { amount: 20 });
    await h.client.send(alice, 'deposit', { amount: 5 });
    await h.run();

    expect(await h.state(alice.id)).toEqual({ balance: 35, history: ['+50', '-20', '+5'] });
    expect(runs).toEqual({ deposit: 2, withdraw: 1, record: 1 });
    expect(await h.state('audit/log')).toEqual({ entries: ['alice -20'] });
    expect(h.backend.queue.counts().total).toBe(0);
    expect(h.backend.store.outboxSize()).toBe(0);
  });

  it('commits a batch of one actor in one commit and moves the inbox offset to its last message', async () => {
    const { Account, Audit } = bank();
    const h = setup({ actors: [Account, Audit] });
    const commits = commitsOf(h.backend, 'account/alice');
    for (let i = 1; i <= 5; i++)
      await h.client.send(Account.ref('alice'), 'deposit', { amount: i });
    const lastSeq = h.backend.queue.messages().at(-1)!.seq;
    await h.run();

    expect(commits).toHaveLength(1);
    expect(commits[0]).toMatchObject({ ver: 1, inboxOffset: lastSeq, state: { balance: 15 } });
  });

  it('rejects a message whose handler throws a TerminalError and applies the rest of its batch', async () => {
    const { Account, Audit, runs } = bank();
    const h = setup({ actors: [Account, Audit] });
    const alice = Account.ref('alice');
    const commits = commitsOf(h.backend, alice.id);
    await h.client.send(alice, 'deposit', { amount: 10 });
    await h.client.send(alice, 'withdraw', { amount: 30 }, { idempotencyKey: 'too-much' });
    await h.client.send(alice, 'withdraw', { amount: 4 });
    await h.run();

    // One batch, one commit: the rejection did not stop the messages after it.
    expect(commits).toHaveLength(1);
    expect(runs.withdraw).toBe(2);
    // The rejected handler's changes to the draft are gone, and so is its send.
    expect(await h.state(alice.id)).toEqual({ balance: 6, history: ['+10', '-4'] });
    expect(await h.state('audit/log')).toEqual({ entries: ['alice -4'] });
    expect(await h.client.outcome(ingressMessageId(alice.id, 'too-much', SYSTEM))).toEqual({
      ok: false,
      error: { code: 'REJECTED', message: 'insufficient funds', details: { missing: 20 } },
    });
  });

  it('rejects an asker with code REJECTED and the error details when the handler throws a TerminalError', async () => {
    const { Account, Audit } = bank();
    const h = setup({ actors: [Account, Audit] });
    const asked = settled(h.client.ask(Account.ref('bob'), 'withdraw', { amount: 3 }));
    await h.run();

    const result = await asked;
    expect(result.ok).toBe(false);
    const error = result.ok ? undefined : result.error;
    expect(isBatonError(error)).toBe(true);
    expect(error).toMatchObject({
      code: ErrorCode.REJECTED,
      message: 'insufficient funds',
      details: { missing: 3 },
    });
    // The rejection was recorded: the record moved past the message, the state did not change.
    expect(await h.record('account/bob')).toMatchObject({
      ver: 1,
      state: { balance: 0, history: [] },
    });
  });

  describe('with a handler that fails before it succeeds', () => {
    function flaky(failures: number, fail: () => Error) {
      const calls: string[] = [];
      let left = failures;
      const Job = actor({
        name: 'job',
        state: z.object({ done: z.array(z.number()) }),
        initial: () => ({ done: [] as number[] }),
        handlers: {
          step: {
            payload: z.object({ n: z.number() }),
            handle: (ctx, { n }) => {
              ctx.state.done.push(n);
              if (n === 2 && left > 0) {
                left--;
                calls.push(`${n}!`);
                throw fail();
              }
              calls.push(String(n));
            },
          },
        },
      });
      return { Job, calls };
    }

    it('stops the batch before a message that throws a RetryableError and commits the messages before it', async () => {
      const { Job, calls } = flaky(1, () => new RetryableError('try later'));
      const h = setup({ actors: [Job] });
      const commits = commitsOf(h.backend, 'job/a');
      for (const n of [1, 2, 3]) await h.client.send(Job.ref('a'), 'step', { n });

      expect(await h.worker.poll()).toBe(3);
      expect(calls).toEqual(['1', '2!']);
      expect(commits.map((c) => c.state)).toEqual([{ done: [1] }]);
      // Messages 2 and 3 wait in the queue, in order, for a later try.
      expect(h.backend.queue.counts()).toMatchObject({ total: 2, inFlight: 2 });
    });

    it('retries a message stopped by a RetryableError until it succeeds, applying each message once', async () => {
      const { Job, calls } = flaky(3, () => new RetryableError('try later'));
      const h = setup({ actors: [Job], maxAttempts: 4 });
      for (const n of [1, 2, 3]) await h.client.send(Job.ref('a'), 'step', { n });
      await h.run();

      expect(calls).toEqual(['1', '2!', '2!', '2!', '2', '3']);
      expect(await h.state('job/a')).toEqual({ done: [1, 2, 3] });
      expect(h.backend.queue.counts()).toMatchObject({ total: 0, deadLetters: 0 });
    });

    it('hides a message stopped by a RetryableError for its retryAfterMs', async () => {
      const { Job } = flaky(1, () => new RetryableError('rate limited', { retryAfterMs: 42_000 }));
      const h = setup({ actors: [Job] });
      await h.client.send(Job.ref('a'), 'step', { n: 2 });
      const start = h.clock.now();
      await h.worker.poll();

      expect(h.backend.queue.nextVisibleAt()).toBe(start + 42_000);
      h.clock.advance(41_999);
      expect(await h.worker.poll()).toBe(0);
      h.clock.advance(1);
      expect(await h.worker.poll()).toBe(1);
      expect(await h.state('job/a')).toEqual({ done: [2] });
    });

    it('gives each actor of a batch its own retry delay', async () => {
      const tried = new Set<string>();
      const Job = actor({
        name: 'job',
        state: z.object({ ok: z.boolean() }),
        initial: () => ({ ok: false }),
        handlers: {
          run: {
            payload: z.object({}),
            handle: (ctx) => {
              if (!tried.has(ctx.self.key)) {
                tried.add(ctx.self.key);
                if (ctx.self.key === 'slow')
                  throw new RetryableError('later', { retryAfterMs: 42_000 });
                throw new Error('blip'); // retried after the first backoff step, 1 s
              }
              ctx.state.ok = true;
            },
          },
        },
      });
      const h = setup({ actors: [Job] });
      await h.client.send(Job.ref('slow'), 'run', {});
      await h.client.send(Job.ref('fast'), 'run', {});
      expect(await h.worker.poll()).toBe(2);

      h.clock.advance(1_000);
      expect(await h.worker.poll()).toBe(1);
      expect(await h.state('job/fast')).toEqual({ ok: true });
      // Not run yet: its record holds only its failed attempt.
      expect(await h.state('job/slow')).toEqual({ ok: false });
      expect((await h.record('job/slow'))?.failing).toMatchObject({ attempts: 1 });
      h.clock.advance(41_000);
      expect(await h.worker.poll()).toBe(1);
      expect(await h.state('job/slow')).toEqual({ ok: true });
    });

    it('retries a message whose handler throws a plain Error', async () => {
      const { Job, calls } = flaky(2, () => new Error('connection reset'));
      const h = setup({ actors: [Job] });
      for (const n of [1, 2, 3]) await h.client.send(Job.ref('a'), 'step', { n });
      await h.run();

      expect(calls).toEqual(['1', '2!', '2!', '2', '3']);
      expect(await h.state('job/a')).toEqual({ done: [1, 2, 3] });
    });

    it('rejects rather than retries a message whose handler throws a terminal BatonError', async () => {
      const { Job, calls } = flaky(5, () => new TerminalError('never'));
      const h = setup({ actors: [Job] });
      for (const n of [1, 2, 3]) await h.client.send(Job.ref('a'), 'step', { n });
      await h.run();

      expect(calls).toEqual(['1', '2!', '3']);
      expect(await h.state('job/a')).toEqual({ done: [1, 3] });
    });
  });

  it('redoes a batch on a version conflict, on top of the record committed behind its back', async () => {
    const { Account, Audit, runs } = bank();
    const h = setup({ actors: [Account, Audit] });
    const alice = Account.ref('alice');
    await h.client.send(alice, 'deposit', { amount: 10 });
    await h.run();
    // The worker's cache now holds version 1. Someone else commits version 2.
    const stale = (await h.record(alice.id))!;
    expect(h.engine.cache.get(alice.id)).toEqual(stale);
    await h.backend.store.commit({
      expectedVer: 1,
      record: { ...stale, ver: 2, state: { balance: 100, history: ['reset'] } },
      outbox: [],
      idempotency: [],
    });

    await h.client.send(alice, 'deposit', { amount: 5 });
    await h.run();

    expect(await h.record(alice.id)).toMatchObject({
      ver: 3,
      state: { balance: 105, history: ['reset', '+5'] },
    });
    // The handler ran on the stale cached state, lost the commit race, and ran again.
    expect(runs.deposit).toBe(3);
  });

  it('reads the record of an actor that two workers take turns at, instead of failing a commit on a stale warm record in every turn', async () => {
    const { Account, Audit, runs } = bank();
    let conflicts = 0;
    const onTurn = (stats: TurnStats) => {
      conflicts += stats.versionConflicts;
    };
    const h = setup({ actors: [Account, Audit], onTurn });
    // A second worker on the same store and queue (another Lambda container).
    const other = new Worker(
      createEngine({
        actors: [Account, Audit],
        store: h.backend.store,
        queue: h.backend.queue,
        clock: h.clock,
        logger: silentLogger,
        onTurn,
      }),
    );
    const alice = Account.ref('alice');
    const turns = 20;
    for (let i = 0; i < turns; i++) {
      await h.client.send(alice, 'deposit', { amount: 1 });
      expect(await (i % 2 === 0 ? h.worker : other).poll()).toBe(1);
    }

    expect(await h.record(alice.id)).toMatchObject({ ver: turns, state: { balance: turns } });
    // Each worker loses one commit to the other, learns that the actor is shared, and reads
    // its record from then on (a worker that trusted its cache would lose 18 of the 20).
    expect(conflicts).toBe(2);
    expect(runs.deposit).toBe(turns + conflicts);
  });

  it('trusts its warm record again once a read finds that no other worker committed since', async () => {
    const { Account, Audit } = bank();
    const h = setup({ actors: [Account, Audit] });
    const alice = Account.ref('alice');
    await h.client.send(alice, 'deposit', { amount: 1 });
    await h.run();
    const stored = (await h.record(alice.id))!;
    // Another writer commits behind the worker's back: its next turn loses a commit.
    await h.backend.store.commit({
      expectedVer: 1,
      record: { ...stored, ver: 2 },
      outbox: [],
      idempotency: [],
    });
    const load = h.backend.store.load.bind(h.backend.store);
    let loads = 0;
    h.backend.store.load = async (actorId) => {
      loads++;
      return load(actorId);
    };
    for (let i = 0; i < 3; i++) {
      await h.client.send(alice, 'deposit', { amount: 1 });
      await h.run();
    }
    // The turn after the conflict reads the record and finds the one this worker committed:
    // the turn after that trusts its cache again, with no read.
    expect(loads).toBe(1);
    expect(await h.record(alice.id)).toMatchObject({ ver: 5, state: { balance: 4 } });
  });

  it('gives handlers a fixed time per message and the same random values for the same seed', async () => {
    let advance = () => {};
    const Dice = actor({
      name: 'dice',
      state: z.object({ rolls: z.array(z.number()) }),
      initial: () => ({ rolls: [] as number[] }),
      handlers: {
        roll: {
          payload: z.object({}),
          handle: (ctx) => {
            const before = ctx.now();
            advance();
            const r = ctx.random();
            ctx.state.rolls.push(r);
            return { before, after: ctx.now(), r, uuid: ctx.uuid(), uuid2: ctx.uuid() };
          },
        },
      },
    });
    const rollTwice = async (seed: number) => {
      const h = setup({ actors: [Dice], random: seededRandom(seed) });
      advance = () => h.clock.advance(1_000);
      const at = h.clock.now();
      const first = h.client.ask(Dice.ref('d'), 'roll', {});
      await h.run();
      const second = h.client.ask(Dice.ref('d'), 'roll', {});
      await h.run();
      return { at, replies: [await first, await second] };
    };

    const a = await rollTwice(7);
    const b = await rollTwice(7);
    const c = await rollTwice(8);
    expect(a.replies[0]).toMatchObject({ before: a.at, after: a.at });
    expect(a.replies[0]!.uuid).toMatch(
      /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
    );
    expect(a.replies[0]!.uuid).not.toBe(a.replies[0]!.uuid2);
    expect(a.replies[0]!.r).not.toBe(a.replies[1]!.r);
    expect(b.replies).toEqual(a.replies);
    expect(c.replies.map((r) => r.r)).not.toEqual(a.replies.map((r) => r.r));
  });
});

describe('a turn that keeps losing the race', () => {
  it('gives up with VERSION_CONFLICT after 16 conflicts instead of retrying for ever (the worker then leaves the messages to be redelivered)', async () => {
    const { Account, Audit } = bank();
    const store = new EmbeddedStore();
    let commits = 0;
    // Another worker wins every commit: each attempt reloads and loses again.
    const losing: Store = new Proxy(store, {
      get: (target, prop) => {
        if (prop === 'commit') {
          return async (commit: Commit) => {
            commits++;
            throw versionConflict(commit.record.id);
          };
        }
        const value = Reflect.get(target, prop, target);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    const engine = createEngine({
      actors: [Account, Audit],
      store: losing,
      queue: new EmbeddedQueue(),
      logger: silentLogger,
    });
    const envelope = {
      id: ingressMessageId('account/a', 'k'),
      from: INGRESS,
      seq: 0,
      to: 'account/a',
      name: 'deposit',
      payload: { amount: 1 },
      sentAt: Date.now(),
    };
    const failure = await runTurn(engine, 'account/a', [{ envelope, queueSeq: '1' }]).then(
      () => undefined,
      (error: unknown) => error,
    );

    expect(failure).toMatchObject({ code: ErrorCode.VERSION_CONFLICT });
    expect(commits).toBe(16);
  });
});

describe('a new actor', () => {
  it("starts from its definition's initial state for its own key", async () => {
    const Named = actor({
      name: 'named',
      state: z.object({ owner: z.string() }),
      initial: (key) => ({ owner: key }),
      handlers: { owner: { payload: z.object({}), handle: (ctx) => ctx.state.owner } },
    });
    const h = setup({ actors: [Named] });
    const asked = settled(h.client.ask(Named.ref('alice/1'), 'owner', {}));
    await h.run();

    expect(await asked).toEqual({ ok: true, value: 'alice/1' });
  });
});
