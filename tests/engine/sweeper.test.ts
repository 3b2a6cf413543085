import { actor, type BatonError, type Logger, silentLogger } from '@baton/core';
import { decodeEnvelope, type Queue, type QueueMessage, type Store } from '@baton/core/adapter';
import {
  createEngine,
  pauseActor,
  purgeDeadLetter,
  redriveDeadLetter,
  resumeActor,
  runTurn,
  SWEEP_CONCURRENCY,
  SWEEP_GROUP,
  Sweeper,
  type SweepResult,
  Worker,
} from '@baton/core/engine';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { type Harness, keepingDrainedSends, setup } from './helpers.ts';

const Sink = actor({
  name: 'sink',
  state: z.object({ got: z.array(z.number()) }),
  initial: () => ({ got: [] as number[] }),
  handlers: {
    note: {
      payload: z.object({ n: z.number() }),
      handle: (ctx, { n }) => {
        ctx.state.got.push(n);
      },
    },
  },
});

const Sender = actor({
  name: 'sender',
  state: z.object({}),
  initial: () => ({}),
  handlers: {
    burst: {
      payload: z.object({ from: z.number(), count: z.number() }),
      handle: (ctx, { from, count }) => {
        for (let n = from; n < from + count; n++) ctx.send(Sink.ref('s'), 'note', { n });
      },
    },
    farewell: {
      payload: z.object({ from: z.number(), count: z.number() }),
      handle: (ctx, { from, count }) => {
        for (let n = from; n < from + count; n++) ctx.send(Sink.ref('s'), 'note', { n });
        ctx.halt();
      },
    },
    remind: {
      payload: z.object({}),
      handle: (ctx) => {
        ctx.schedule(0, 'ring', {});
      },
    },
    ring: { payload: z.object({}), handle: () => {} },
  },
});

/** Fails its message while `failing`, as a handler whose dependency is down. */
const faults = { failing: true };
const Fragile = actor({
  name: 'fragile',
  state: z.object({ done: z.number() }),
  initial: () => ({ done: 0 }),
  handlers: {
    work: {
      payload: z.object({}),
      handle: (ctx) => {
        if (faults.failing) throw new Error('its dependency is down');
        ctx.state.done++;
      },
    },
  },
});

/** A sweep's result: what it did, nothing where not said. */
function swept(did: Partial<SweepResult> = {}): SweepResult {
  return {
    drained: 0,
    sent: 0,
    failed: 0,
    timersFired: 0,
    timersArmed: 0,
    left: 0,
    lagMs: 0,
    deadLetters: 0,
    ...did,
  };
}

/** Commits a turn for the message in the inbox without draining: a worker that crashed. */
async function commitWithoutDrain(h: Harness): Promise<void> {
  const [message] = await h.backend.queue.receive({ max: 1, visibilityTimeoutMs: 30_000 });
  await runTurn(h.engine, message!.group, [
    { envelope: decodeEnvelope(message!.body)!, queueSeq: message!.seq },
  ]);
  // The message was acked (e.g. it went to the dead-letter queue): nothing will revisit the actor.
  await h.backend.queue.ack([message!.receipt]);
}

describe('Sweeper', () => {
  it('drains an outbox left behind once it is older than minAgeMs, and delivers it once', async () => {
    const h = setup({ actors: [Sink, Sender] });
    await h.client.send(Sender.ref('a'), 'burst', { from: 1, count: 3 });
    await commitWithoutDrain(h);
    expect(h.backend.store.outboxSize()).toBe(1);
    const sweeper = new Sweeper(h.engine, { minAgeMs: 60_000 });

    h.clock.advance(59_999);
    expect(await sweeper.sweep()).toEqual(swept());
    expect(h.backend.queue.counts().total).toBe(0);

    h.clock.advance(2);
    expect(await sweeper.sweep()).toEqual(swept({ drained: 1, sent: 3, lagMs: 60_001 }));
    expect(h.backend.store.outboxSize()).toBe(0);
    // The record held the sends; it holds them no longer.
    expect(await h.record('sender/a')).not.toHaveProperty('outbox');
    expect(await sweeper.sweep()).toEqual(swept());

    await h.run();
    expect(await h.state('sink/s')).toEqual({ got: [1, 2, 3] });
    // The worker's warm record is stale now: its next turn reloads, and sends nothing twice.
    await h.client.send(Sender.ref('a'), 'burst', { from: 4, count: 1 });
    await h.run();
    expect(await h.state('sink/s')).toEqual({ got: [1, 2, 3, 4] });
  });

  it('retires the sends an idle actor’s record still holds after its turn drained them', async () => {
    const h = setup({ actors: [Sink, Sender] });
    // A worker on a store that keeps drained sends in the record (as DynamoDB's does).
    const forgetful = { ...h.engine, store: keepingDrainedSends(h.backend.store) };
    const worker = new Worker(forgetful);
    await h.client.send(Sender.ref('a'), 'burst', { from: 1, count: 2 });
    while ((await worker.poll()) > 0);
    await h.run();
    expect(await h.state('sink/s')).toEqual({ got: [1, 2] });
    expect((await h.record('sender/a'))?.outbox).toHaveLength(1);
    const { life } = (await h.record('sender/a'))!;
    await h.backend.store.retireHeldOutbox('sender/a', 0, life, undefined); // not at that version: nothing
    expect((await h.record('sender/a'))?.ver).toBe(1);

    // A sweep 6 minutes after the drain: its lag says so, past the queue's 5-minute dedupe window.
    h.clock.advance(6 * 60_000);
    expect(await new Sweeper(forgetful).sweep()).toMatchObject({
      drained: 1,
      sent: 2,
      lagMs: 6 * 60_000,
    });
    expect(await h.record('sender/a')).toMatchObject({ ver: 2 });
    expect(await h.record('sender/a')).not.toHaveProperty('outbox');
    // The copies it sent again are dropped as duplicates.
    await h.run();
    expect(await h.state('sink/s')).toEqual({ got: [1, 2] });
  });

  it('drains the left-behind turns of several actors, each actor in send order', async () => {
    const h = setup({ actors: [Sink, Sender] });
    await h.client.send(Sender.ref('a'), 'burst', { from: 1, count: 2 });
    await commitWithoutDrain(h);
    await h.client.send(Sender.ref('b'), 'burst', { from: 100, count: 1 });
    await commitWithoutDrain(h);
    await h.client.send(Sender.ref('a'), 'burst', { from: 3, count: 2 });
    await commitWithoutDrain(h);
    // The second turn of sender/a sent the first one's before it committed over its record.
    expect(h.backend.store.outboxSize()).toBe(2);

    h.clock.advance(120_000);
    expect(await new Sweeper(h.engine).sweep()).toEqual(
      swept({ drained: 2, sent: 3, lagMs: 120_000 }),
    );
    await h.run();
    const got = ((await h.state('sink/s')) as { got: number[] }).got;
    expect(got.filter((n) => n < 100)).toEqual([1, 2, 3, 4]);
    expect(got.filter((n) => n >= 100)).toEqual([100]);
  });

  it('drains the sends apart of a halted actor whose record expired before a sweep reached them', async () => {
    // Room for the sender's record or its sends, not both: its last turn writes them apart.
    const h = setup({ actors: [Sink, Sender], limits: { maxItemBytes: 600 } });
    await h.client.send(Sender.ref('a'), 'farewell', { from: 1, count: 3 });
    await commitWithoutDrain(h);
    const { expiresAt, outboxApart } = (await h.record('sender/a'))!;
    expect(outboxApart).toBe(true);
    const items = h.backend.store.outboxSize();
    expect(items).toBeGreaterThan(0);
    // Past the halted record's expiry, the store deletes it (DynamoDB's TTL); the items stay.
    h.clock.advance(expiresAt! - h.clock.now());
    h.backend.store.purgeExpired();
    expect(await h.record('sender/a')).toBeUndefined();
    expect(h.backend.store.outboxSize()).toBe(items);

    expect(await new Sweeper(h.engine).sweep()).toMatchObject({ drained: 1, sent: 3, failed: 0 });
    expect(h.backend.store.outboxSize()).toBe(0);
    // Sent twice the mark retention ago, they are too old to apply safely: kept, not applied.
    await h.run();
    expect(await h.state('sink/s')).toEqual({ got: [] });
    const kept = await h.backend.store.listDeadLetters('sink/s');
    expect(kept.map((letter) => letter.envelope.payload)).toEqual([{ n: 1 }, { n: 2 }, { n: 3 }]);
    expect(kept.every((letter) => letter.redrivable)).toBe(true);
  });

  it('logs an error for an outbox older than alarmAgeMs', async () => {
    const h = setup({ actors: [Sink, Sender] });
    const errors: Array<Record<string, unknown> | undefined> = [];
    const logger: Logger = { ...silentLogger, error: (_message, fields) => errors.push(fields) };
    const engine = createEngine({
      actors: [Sink, Sender],
      store: h.backend.store,
      queue: h.backend.queue,
      clock: h.clock,
      logger,
    });
    // Make the drain keep failing, as if the target queue were unreachable.
    h.backend.queue.send = async () => {
      throw new Error('queue unreachable');
    };
    await engine.store.commit({
      expectedVer: 0,
      record: { id: 'sender/a', ver: 1, state: {}, inboxOffset: '0', marks: {}, sentSeq: 1 },
      outbox: [
        {
          actorId: 'sender/a',
          seq: 1,
          createdAt: h.clock.now(),
          envelopes: [
            {
              id: 'sender/a:1',
              from: 'sender/a',
              seq: 1,
              to: 'sink/s',
              name: 'note',
              payload: { n: 1 },
              sentAt: h.clock.now(),
            },
          ],
        },
      ],
      idempotency: [],
    });
    const sweeper = new Sweeper(engine, { minAgeMs: 1_000, alarmAgeMs: 10_000 });

    h.clock.advance(5_000);
    expect(await sweeper.sweep()).toEqual(swept({ failed: 1 }));
    expect(errors).toEqual([]);

    h.clock.advance(5_001);
    expect(await sweeper.sweep()).toEqual(swept({ failed: 1 }));
    expect(errors).toEqual([{ actor: 'sender/a', alarmAgeMs: 10_000 }]);
    expect(h.backend.store.outboxSize()).toBe(1);
  });

  it('counts the dead letters kept, parked messages too, until each is redriven, resumed or purged', async () => {
    faults.failing = true;
    const h = setup({ actors: [Fragile], maxAttempts: 2 });
    const sweeper = new Sweeper(h.engine);
    expect(await sweeper.sweep()).toEqual(swept());
    await h.client.send(Fragile.ref('a'), 'work', {});
    await h.client.send(Fragile.ref('b'), 'work', {});
    await h.run();
    expect(await sweeper.sweep()).toEqual(swept({ deadLetters: 2 }));
    // Messages to a paused actor are parked: they wait on an operator too.
    const { store, queue } = h.backend;
    await pauseActor(store, queue, 'fragile/c', { by: 'test' });
    await h.client.send(Fragile.ref('c'), 'work', {});
    await h.run();
    expect(await sweeper.sweep()).toEqual(swept({ deadLetters: 3 }));

    faults.failing = false;
    const [a] = await store.listDeadLetters('fragile/a');
    await redriveDeadLetter(store, queue, 'fragile/a', a!.messageId);
    await h.run();
    const [b] = await store.listDeadLetters('fragile/b');
    await purgeDeadLetter(store, 'fragile/b', b!.messageId, { by: 'test' });
    expect(await sweeper.sweep()).toEqual(swept({ deadLetters: 1 }));
    await resumeActor(store, queue, 'fragile/c', { by: 'test' });
    await h.run();
    expect(await sweeper.sweep()).toEqual(swept());
    expect(await h.state('fragile/c')).toEqual({ done: 1 });
  });

  it('leaves the count out on a store with no count, and when the count fails', async () => {
    faults.failing = true;
    const h = setup({ actors: [Fragile], maxAttempts: 2 });
    await h.client.send(Fragile.ref('a'), 'work', {});
    await h.run();
    const warnings: Array<[string, Record<string, unknown> | undefined]> = [];
    const logger: Logger = {
      ...silentLogger,
      warn: (message, fields) => warnings.push([message, fields]),
    };
    /** The embedded store with `countDeadLetters` replaced. */
    const withCount = (count: Store['countDeadLetters']): Store => {
      const store = h.backend.store;
      return new Proxy(store, {
        get: (target, name) => {
          if (name === 'countDeadLetters') return count;
          const value = Reflect.get(target, name);
          return typeof value === 'function' ? value.bind(target) : value;
        },
      });
    };
    const sweepOn = (on: Store) =>
      new Sweeper(createEngine({ actors: [Fragile], store: on, queue: h.backend.queue, logger }));
    const { deadLetters: _, ...uncounted } = swept();
    expect(await sweepOn(withCount(undefined)).sweep()).toEqual(uncounted);
    expect(warnings).toEqual([]);
    const failing = withCount(async () => {
      throw new Error('the index is unreachable');
    });
    expect(await sweepOn(failing).sweep()).toEqual(uncounted);
    expect(warnings).toEqual([
      [
        'sweep could not count the dead letters kept',
        { error: 'unexpected error: the index is unreachable' },
      ],
    ]);
  });

  describe('with many idle actors', () => {
    /**
     * `count` senders that each sent one note, one a second: their records hold the drained
     * sends, as DynamoDB's do, until the sweeper retires them.
     */
    async function idleSenders(h: Harness, count: number): Promise<Store> {
      const store = keepingDrainedSends(h.backend.store);
      const worker = new Worker({ ...h.engine, store });
      for (let n = 0; n < count; n++) {
        await h.client.send(Sender.ref(`${n}`), 'burst', { from: n, count: 1 });
        while ((await worker.poll()) > 0);
        h.clock.advance(1_000);
      }
      return store;
    }

    /** How many notes the sink got, each once. */
    async function delivered(h: Harness): Promise<number> {
      await h.run();
      const { got } = (await h.state('sink/s')) as { got: number[] };
      expect(new Set(got).size).toBe(got.length);
      return got.length;
    }

    /** `store` whose loads wait a turn of the event loop, counting how many wait at once. */
    function countingLoads(store: Store, onLoad: () => void = () => {}) {
      const seen = { inFlight: 0, most: 0, loaded: [] as string[] };
      const counted = new Proxy(store, {
        get: (target, prop) => {
          const value = Reflect.get(target, prop, target);
          if (prop !== 'load') return typeof value === 'function' ? value.bind(target) : value;
          return async (actorId: string) => {
            seen.most = Math.max(seen.most, ++seen.inFlight);
            seen.loaded.push(actorId);
            onLoad();
            await new Promise((resolve) => setImmediate(resolve));
            seen.inFlight--;
            return target.load(actorId);
          };
        },
      });
      return { store: counted, seen };
    }

    /** `queue` counting its sends and how many messages each held. */
    function countingSends(queue: Queue, refuse: (dedupeId: string) => boolean = () => false) {
      const sends: number[] = [];
      const counted = new Proxy(queue, {
        get: (target, prop) => {
          const value = Reflect.get(target, prop, target);
          if (prop !== 'send') return typeof value === 'function' ? value.bind(target) : value;
          return async (messages: readonly QueueMessage[]) => {
            if (messages.some((m) => refuse(m.dedupeId))) throw new Error('queue refused');
            sends.push(messages.length);
            return target.send(messages);
          };
        },
      });
      return { queue: counted, sends };
    }

    it('retires their held sends ten actors to a group, a few groups at a time, each group’s sends in one call', async () => {
      const h = setup({ actors: [Sink, Sender] });
      const kept = await idleSenders(h, 45);
      expect(await delivered(h)).toBe(45);
      const { store, seen } = countingLoads(kept);
      const { queue, sends } = countingSends(h.backend.queue);
      h.clock.advance(60_000);

      const sweeper = new Sweeper({ ...h.engine, store, queue }, { concurrency: 2 });
      expect(await sweeper.sweep()).toEqual(swept({ drained: 45, sent: 45, lagMs: 105_000 }));
      expect(seen.most).toBe(2 * SWEEP_GROUP);
      // Forty-five notes to one sink, from as many senders: one call a group.
      expect(sends).toEqual([10, 10, 10, 10, 5]);
      for (let n = 0; n < 45; n++) {
        expect(await h.record(`sender/${n}`)).not.toHaveProperty('outbox');
      }
      // The copies it sent are dropped.
      expect(await delivered(h)).toBe(45);
      // Four lanes unless told.
      const again = countingLoads(await idleSenders(h, 45));
      h.clock.advance(60_000);
      expect((await new Sweeper({ ...h.engine, store: again.store }).sweep()).drained).toBe(45);
      expect(again.seen.most).toBe(SWEEP_CONCURRENCY * SWEEP_GROUP);
    });

    it('drains a group that fails again actor by actor, so that one failing actor holds up no other', async () => {
      const h = setup({ actors: [Sink, Sender] });
      const warnings: Array<[string, Record<string, unknown> | undefined]> = [];
      const logger: Logger = { ...silentLogger, warn: (message, f) => warnings.push([message, f]) };
      const kept = await idleSenders(h, 10);
      const broken = { down: true };
      const { queue, sends } = countingSends(
        h.backend.queue,
        (id) => broken.down && id.startsWith('sender/3:'),
      );
      h.clock.advance(60_000);
      const sweeper = new Sweeper({ ...h.engine, store: kept, queue, logger });

      expect(await sweeper.sweep()).toEqual(
        swept({ drained: 9, sent: 9, failed: 1, lagMs: 70_000 }),
      );
      expect(sends).toEqual(Array(9).fill(1));
      expect(warnings).toEqual([
        [
          'sweep could not drain an outbox',
          { actor: 'sender/3', error: 'unexpected error: queue refused' },
        ],
      ]);
      expect((await h.record('sender/3'))?.outbox).toHaveLength(1);
      broken.down = false;
      expect(await sweeper.sweep()).toEqual(swept({ drained: 1, sent: 1, lagMs: 67_000 }));
      expect(await delivered(h)).toBe(10);
    });

    it('leaves the newest to the next sweep once its time budget runs out', async () => {
      const h = setup({ actors: [Sink, Sender] });
      const warnings: Array<Record<string, unknown> | undefined> = [];
      const logger: Logger = { ...silentLogger, warn: (_message, fields) => warnings.push(fields) };
      // Each actor's load takes 100 ms: a group of ten, a second.
      const { store, seen } = countingLoads(await idleSenders(h, 25), () => h.clock.advance(100));
      h.clock.advance(60_000);
      const sweeper = new Sweeper(
        { ...h.engine, store, logger },
        { concurrency: 1, budgetMs: 250 },
      );

      expect(await sweeper.sweep()).toEqual(
        swept({ drained: 10, sent: 10, left: 15, lagMs: 85_000 }),
      );
      expect(seen.loaded).toEqual(Array.from({ length: 10 }, (_, n) => `sender/${n}`));
      // The next one takes up the rest, oldest first; one given no time drains nothing.
      expect(await sweeper.sweep({ budgetMs: 0 })).toEqual(swept({ left: 15 }));
      expect(await sweeper.sweep({ budgetMs: Number.POSITIVE_INFINITY })).toEqual(
        swept({ drained: 15, sent: 15, lagMs: 86_000 - 10_000 }),
      );
      expect(seen.loaded.slice(10)).toEqual(
        Array.from({ length: 15 }, (_, n) => `sender/${n + 10}`),
      );
      // Only the sweeps that left some warned.
      expect(warnings).toEqual([
        { left: 15, budgetMs: 250, drained: 10 },
        { left: 15, budgetMs: 0, drained: 0 },
      ]);
      expect(await delivered(h)).toBe(25);
    });

    it('fires due timers before it drains outboxes, so a sweep out of time still fires a page of them', async () => {
      const h = setup({ actors: [Sink, Sender] });
      const kept = await idleSenders(h, 2);
      // A timer that is due, whose fire was lost: its turn ran, and nothing armed it.
      await h.client.send(Sender.ref('timer'), 'remind', {});
      const got = await h.backend.queue.receive({ max: 1, visibilityTimeoutMs: 60_000 });
      const batch = got.map((m) => ({ envelope: decodeEnvelope(m.body)!, queueSeq: m.seq }));
      await runTurn(h.engine, 'sender/timer', batch);
      h.clock.advance(60_000);
      const calls: string[] = [];
      const store = new Proxy(kept, {
        get: (target, prop) => {
          const value = Reflect.get(target, prop, target);
          if (typeof value !== 'function') return value;
          return (...args: unknown[]) => {
            calls.push(String(prop));
            return value.apply(target, args);
          };
        },
      });

      const sweeper = new Sweeper({ ...h.engine, store });
      expect(await sweeper.sweep({ budgetMs: 0 })).toEqual(swept({ timersFired: 1, left: 2 }));
      expect(calls).not.toContain('load');
      calls.length = 0;
      // Its fire is not handled yet: a sweep fires it again (the turn skips a copy).
      expect(await sweeper.sweep()).toEqual(
        swept({ drained: 2, sent: 2, timersFired: 1, lagMs: 62_000 }),
      );
      expect(calls.indexOf('listDueTimers')).toBeLessThan(calls.indexOf('load'));
    });

    it('goes on to the outboxes when it cannot list the due timers, and says why', async () => {
      const h = setup({ actors: [Sink, Sender] });
      const kept = await idleSenders(h, 2);
      const warnings: Array<[string, Record<string, unknown> | undefined]> = [];
      const logger: Logger = { ...silentLogger, warn: (message, f) => warnings.push([message, f]) };
      const store = new Proxy(kept, {
        get: (target, prop) => {
          if (prop === 'listDueTimers') return () => Promise.reject(new Error('index unavailable'));
          const value = Reflect.get(target, prop, target);
          return typeof value === 'function' ? value.bind(target) : value;
        },
      });
      h.clock.advance(60_000);
      const result = await new Sweeper({ ...h.engine, store, logger }).sweep();
      expect(result).toEqual(swept({ drained: 2, sent: 2, lagMs: 62_000 }));
      expect(warnings).toEqual([
        [
          'sweep could not fire due timers',
          { error: expect.stringContaining('index unavailable') },
        ],
      ]);
    });

    it('refuses a concurrency or budget that is not a count or a time', async () => {
      const h = setup({ actors: [Sink, Sender] });
      const refusal = (make: () => unknown) => {
        try {
          make();
        } catch (error) {
          return { message: (error as BatonError).message, ...(error as BatonError).details };
        }
        throw new Error('expected a refusal');
      };
      for (const concurrency of [0, 1.5, Number.NaN]) {
        expect(refusal(() => new Sweeper(h.engine, { concurrency }))).toEqual({
          message: `sweeper concurrency must be a whole number ≥ 1, got ${concurrency}`,
          option: 'concurrency',
          value: concurrency,
        });
      }
      for (const budgetMs of [-1, '100' as unknown as number]) {
        expect(refusal(() => new Sweeper(h.engine, { budgetMs }))).toEqual({
          message: `sweeper budgetMs must be a number ≥ 0, got ${budgetMs}`,
          option: 'budgetMs',
          value: budgetMs,
        });
      }
      await expect(new Sweeper(h.engine).sweep({ budgetMs: Number.NaN })).rejects.toThrow(
        'sweeper budgetMs must be a number ≥ 0, got NaN',
      );
    });
  });
});
