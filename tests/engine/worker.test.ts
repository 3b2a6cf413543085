/**
 * What a `Worker` asks of its queue for each batch: how many messages, which receipts it acks,
 * which it releases and after what delay; what it reports to `onTurn` and `onTurnStart` (turns of
 * actors, not runs of effects); what it logs when a turn fails or its timers cannot be armed;
 * and how it checks the queue's redrive setting.
 */
import { actor, ErrorCode, effect, RetryableError } from '@baton/core';
import type { Queue, Store, TimerQueue } from '@baton/core/adapter';
import {
  REDELIVERED_LOG,
  Sweeper,
  type TurnStart,
  type TurnStats,
  UNSENT_LOG,
  Worker,
} from '@baton/core/engine';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { recordingLogger, setup } from './helpers.ts';

const HOUR = 60 * 60 * 1000;

const Ping = effect({ name: 'ping', payload: z.object({}), run: async () => {} });

const Job = actor({
  name: 'job',
  state: z.object({ done: z.number() }),
  initial: () => ({ done: 0 }),
  handlers: {
    work: {
      payload: z.object({}),
      handle: (ctx) => {
        ctx.state.done++;
      },
    },
    crash: {
      payload: z.object({}),
      handle: () => {
        throw new Error('down');
      },
    },
    wait: {
      payload: z.object({}),
      handle: () => {
        throw new RetryableError('busy', { retryAfterMs: 7_000 });
      },
    },
    tomorrow: {
      payload: z.object({}),
      handle: () => {
        throw new RetryableError('closed until tomorrow', { retryAfterMs: 13 * HOUR });
      },
    },
    later: {
      payload: z.object({}),
      handle: (ctx) => {
        ctx.schedule(1_000, 'work', {});
      },
    },
    notify: {
      payload: z.object({}),
      handle: (ctx) => {
        ctx.effect(Ping, {});
      },
    },
    pass: {
      payload: z.object({}),
      handle: (ctx) => {
        ctx.state.done++;
        ctx.send(Job.ref('j'), 'work', {});
      },
    },
  },
});

/** `queue` with its calls recorded: receive's options, ack's and release's arguments. */
function spied(queue: Queue) {
  const calls: Array<[string, ...unknown[]]> = [];
  const spy: Queue = {
    send: (messages) => queue.send(messages),
    receive: (options) => {
      calls.push(['receive', options]);
      return queue.receive(options);
    },
    ack: (receipts) => {
      calls.push(['ack', [...receipts]]);
      return queue.ack(receipts);
    },
    release: (receipts, delayMs) => {
      calls.push(['release', [...receipts], delayMs]);
      return queue.release(receipts, delayMs);
    },
  };
  return { spy, calls };
}

const job = Job.ref('j');

describe('a Worker, batch by batch', () => {
  it('asks for a batch of batchSize within its visibility timeout, and makes no other call for an empty one', async () => {
    const h = setup({ actors: [Job], batchSize: 3 });
    const { spy, calls } = spied(h.backend.queue);
    const worker = new Worker({ ...h.engine, queue: spy });
    expect(await worker.poll()).toBe(0);
    expect(calls).toEqual([
      ['receive', { max: 3, visibilityTimeoutMs: h.engine.visibilityTimeoutMs }],
    ]);
  });

  it('acks what is done, and releases each failure after its own delay: the backoff or the handler’s', async () => {
    const h = setup({ actors: [Job], batchSize: 10, maxAttempts: 20 });
    const { spy, calls } = spied(h.backend.queue);
    const worker = new Worker({ ...h.engine, queue: spy });
    await h.client.send(Job.ref('a'), 'work', {});
    await h.client.send(Job.ref('b'), 'crash', {});
    await h.client.send(Job.ref('c'), 'wait', {});
    expect(await worker.poll()).toBe(3);
    const receipts = calls.filter(([kind]) => kind !== 'receive');
    expect(receipts).toEqual([
      ['ack', [expect.any(String)]],
      ['release', [expect.any(String)], 1_000],
      ['release', [expect.any(String)], 7_000],
    ]);
    expect(new Set(receipts.map((call) => (call[1] as string[])[0])).size).toBe(3);
  });

  it("releases a retry asked for past SQS's 12 hours for what its receive has left of them", async () => {
    const h = setup({ actors: [Job] });
    const { spy, calls } = spied(h.backend.queue);
    // Ten minutes pass between the receive and the release (a slow turn).
    spy.receive = async (options) => {
      const received = await h.backend.queue.receive(options);
      h.clock.advance(10 * 60_000);
      return received;
    };
    const worker = new Worker({ ...h.engine, queue: spy });
    await h.client.send(job, 'tomorrow', {});
    // The queue refuses a release past 12 hours from the receive, as SQS does.
    expect(await worker.poll()).toBe(1);
    const released = calls.filter(([kind]) => kind === 'release').map((call) => call[2] as number);
    expect(released).toEqual([12 * HOUR - 10 * 60_000 - 60_000]);
    expect(h.backend.queue.nextVisibleAt()).toBe(h.clock.now() + released[0]!);
  });

  it('backs off 1 s, 2 s, 4 s … by delivery, up to 60 s, and acks nothing while all fail', async () => {
    const h = setup({ actors: [Job], maxAttempts: 20 });
    await h.client.send(job, 'crash', {});
    const [message] = await h.backend.queue.receive({ max: 1, visibilityTimeoutMs: 0 });
    // A queue that hands out the same failing message, as delivered for the n-th time.
    let delivery = 0;
    const { spy, calls } = spied(h.backend.queue);
    spy.receive = async () => [{ ...message!, receiveCount: delivery }];
    spy.redrivePolicy = async () => ({ maxReceives: 100 });
    const worker = new Worker({ ...h.engine, queue: spy });
    const delays: unknown[] = [];
    for (delivery = 1; delivery <= 9; delivery++) {
      calls.length = 0;
      expect(await worker.poll()).toBe(1);
      expect(calls.filter(([kind]) => kind === 'ack')).toEqual([]);
      delays.push(...calls.filter(([kind]) => kind === 'release').map((call) => call[2]));
    }
    expect(delays).toEqual([1_000, 2_000, 4_000, 8_000, 16_000, 32_000, 60_000, 60_000, 60_000]);
  });

  it('names the actor of messages delivered again, as after a worker died on them', async () => {
    const infos: Array<{ message: string; fields: unknown }> = [];
    const logger = {
      ...recordingLogger().logger,
      info: (message: string, fields: unknown) => infos.push({ message, fields }),
    };
    const h = setup({ actors: [Job], logger });
    await h.client.send(Job.ref('a'), 'work', {});
    // A worker took it and died (or timed out) before it could end the turn: nothing recorded.
    expect(await h.backend.queue.receive({ max: 1, visibilityTimeoutMs: 0 })).toHaveLength(1);
    await h.client.send(Job.ref('b'), 'work', {});
    while ((await h.worker.poll()) > 0) {}
    expect(infos.filter((l) => l.message === REDELIVERED_LOG)).toEqual([
      { message: REDELIVERED_LOG, fields: { actor: 'job/a', receives: 2 } },
    ]);
    expect((await h.record('job/a'))?.state).toEqual({ done: 1 });
  });

  it('reports turns of actors to onTurnStart and onTurn, not runs of effects', async () => {
    const starts: TurnStart[] = [];
    const turns: TurnStats[] = [];
    const h = setup({ actors: [Job], effects: [Ping], onTurn: (stats) => turns.push(stats) });
    const worker = new Worker({ ...h.engine, onTurnStart: (start) => starts.push(start) });
    await h.client.send(job, 'notify', {});
    const before = performance.now();
    while ((await worker.poll()) > 0) {}
    const elapsed = performance.now() - before;
    expect(starts.map((s) => s.actorId)).toEqual([job.id]);
    expect(turns.map((t) => t.actorId)).toEqual([job.id]);
    expect(turns[0]).toMatchObject({ applied: 1, failed: false, batchSize: 1 });
    expect(turns[0]!.durationMs).toBeGreaterThanOrEqual(0);
    expect(turns[0]!.durationMs).toBeLessThanOrEqual(elapsed);
  });

  it('reports a turn that threw as failed, logs it, and has its messages redelivered', async () => {
    const turns: TurnStats[] = [];
    const { logger, lines } = recordingLogger();
    const h = setup({ actors: [Job], logger, onTurn: (stats) => turns.push(stats) });
    let down = true;
    const backendStore = h.backend.store;
    const load: Store['load'] = (id) =>
      down ? Promise.reject(new Error('store unreachable')) : backendStore.load(id);
    const store = new Proxy(backendStore, {
      get: (target, name) => {
        if (name === 'load') return load;
        const value: unknown = Reflect.get(target, name);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    const { spy, calls } = spied(h.backend.queue);
    const worker = new Worker({ ...h.engine, store, queue: spy });
    await h.client.send(job, 'work', {});
    expect(await worker.poll()).toBe(1);
    expect(turns).toEqual([
      expect.objectContaining({ actorId: job.id, failed: true, applied: 0, retried: 1 }),
    ]);
    expect(lines.filter((l) => l.level === 'error')).toEqual([
      {
        level: 'error',
        message: 'turn failed; its messages will be redelivered',
        fields: { actor: job.id, error: 'unexpected error: store unreachable' },
      },
    ]);
    expect(calls.filter(([kind]) => kind === 'release')).toEqual([
      ['release', [expect.any(String)], 1_000],
    ]);
    down = false;
    h.clock.advance(1_000);
    await worker.poll();
    expect(await h.state(job.id)).toEqual({ done: 1 });
  });

  it('arms only the turns that scheduled timers, and warns when arming fails', async () => {
    const armed: number[] = [];
    let failing = false;
    const timers: TimerQueue = {
      arm: async (refs) => {
        armed.push(refs.length);
        if (failing) throw new Error('arming is down');
      },
    };
    const { logger, lines } = recordingLogger();
    const h = setup({ actors: [Job], logger });
    const worker = new Worker({ ...h.engine, timers });
    await h.client.send(Job.ref('a'), 'work', {});
    await h.client.send(Job.ref('b'), 'later', {});
    while ((await worker.poll()) > 0) {}
    expect(armed).toEqual([1]);
    failing = true;
    await h.client.send(Job.ref('c'), 'later', {});
    while ((await worker.poll()) > 0) {}
    expect(lines.filter((l) => l.level === 'warn')).toEqual([
      {
        level: 'warn',
        message: 'timers committed but not armed: the sweeper will fire them',
        fields: { actor: 'job/c', timers: 1, error: 'unexpected error: arming is down' },
      },
    ]);
  });

  it('acks a turn’s messages once committed even when its sends are refused, and its next turn or the sweeper sends them', async () => {
    const { logger, lines } = recordingLogger();
    const h = setup({ actors: [Job], logger });
    let refused = false;
    const { spy, calls } = spied(h.backend.queue);
    const queue: Queue = {
      ...spy,
      send: (messages) =>
        refused ? Promise.reject(new Error('AccessDenied')) : h.backend.queue.send(messages),
    };
    const worker = new Worker({ ...h.engine, queue });
    const a = Job.ref('a');
    await h.client.send(a, 'pass', {});
    refused = true;
    expect(await worker.poll()).toBe(1);
    // Applied and acked: nothing comes back to be skipped, or to end in a dead-letter queue.
    expect(calls.filter(([kind]) => kind !== 'receive')).toEqual([['ack', [expect.any(String)]]]);
    expect(await h.state(a.id)).toEqual({ done: 1 });
    expect(lines).toEqual([
      {
        level: 'warn',
        message: UNSENT_LOG,
        fields: { actor: a.id, error: 'unexpected error: AccessDenied' },
      },
    ]);
    expect((await h.record(a.id))?.outbox).toHaveLength(1); // kept in the record
    // The actor's next message waits while its earlier sends cannot go out: I3 holds.
    refused = false;
    await h.client.send(a, 'pass', {});
    refused = true;
    expect(await worker.poll()).toBe(1);
    expect(calls.at(-1)).toEqual(['release', [expect.any(String)], 1_000]);
    expect(await h.state(a.id)).toEqual({ done: 1 });
    // Once the inbox takes sends again, a sweep sends the first turn's, and the retried message
    // is applied after them: each once.
    refused = false;
    h.clock.advance(1_000);
    const sweep = await new Sweeper({ ...h.engine, queue }, { minAgeMs: 0 }).sweep();
    expect(sweep).toMatchObject({ sent: 1, failed: 0 });
    await h.run();
    expect(await h.state(a.id)).toEqual({ done: 2 });
    expect(await h.state(job.id)).toEqual({ done: 2 });
    expect(h.backend.queue.counts()).toMatchObject({ total: 0, deadLetters: 0 });
  });

  it('asks the queue for its redrive setting before each batch (the queue caches it), and refuses each batch while it is too low', async () => {
    const h = setup({ actors: [Job] });
    let asked = 0;
    let answer: () => Promise<{ maxReceives: number } | undefined> = () =>
      Promise.reject(new Error('queue unreachable'));
    const { spy: queue } = spied(h.backend.queue);
    Object.assign(queue, {
      redrivePolicy: () => {
        asked++;
        return answer();
      },
    });
    const worker = new Worker({ ...h.engine, queue });
    await expect(worker.poll()).rejects.toThrow('queue unreachable');
    answer = async () => ({ maxReceives: 10 });
    expect(await worker.poll()).toBe(0);
    expect(await worker.poll()).toBe(0);
    expect(asked).toBe(3);

    const refusing = new Worker({
      ...h.engine,
      queue: {
        ...queue,
        redrivePolicy: async () => {
          asked++;
          return { maxReceives: 2 };
        },
      },
    });
    await expect(refusing.poll()).rejects.toMatchObject({ code: ErrorCode.INVALID_ARGUMENT });
    await expect(refusing.poll()).rejects.toMatchObject({ code: ErrorCode.INVALID_ARGUMENT });
    expect(asked).toBe(5);
  });

  it('logs a body that is not an envelope for the actor, naming the actor and the message', async () => {
    const { logger, lines } = recordingLogger();
    const h = setup({ actors: [Job], logger });
    await h.backend.queue.send([{ group: job.id, dedupeId: 'junk-1', body: 'not an envelope' }]);
    await h.worker.poll();
    expect(lines.filter((l) => l.level === 'error')).toEqual([
      {
        level: 'error',
        message: 'inbox message is not a Baton envelope for this actor',
        fields: expect.objectContaining({ actor: job.id, dedupeId: 'junk-1' }),
      },
    ]);
  });
});
