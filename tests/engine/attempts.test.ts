/**
 * A message is tried `maxAttempts` times whatever waits before it. A FIFO group's batch comes
 * back whole when one of its messages fails, so the queue's receive count of a message behind a
 * failing one grows while it is never run: the record counts each head message's failures
 * instead. And a failing message is ended in the actor's turn at its last receive, rather than
 * left for the queue's own dead-letter queue with the messages behind it.
 */
import { actor, ErrorCode, RetryableError, silentLogger } from '@baton/core';
import { jsonSize, type Queue } from '@baton/core/adapter';
import { createEngine, Worker } from '@baton/core/engine';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { recordingLogger, runUntilIdle, setup } from './helpers.ts';

/** Per message number, its handler's runs. */
const runs = new Map<number, number>();

const Job = actor({
  name: 'job',
  state: z.object({ done: z.array(z.number()), pad: z.string().optional() }),
  initial: () => ({ done: [] as number[] }),
  handlers: {
    /** Fills the state with `bytes` characters. */
    pad: {
      payload: z.object({ bytes: z.number().int() }),
      handle: (ctx, { bytes }) => {
        ctx.state.done.push(-bytes);
        (ctx.state as { pad?: string }).pad = 'x'.repeat(bytes);
      },
    },
    /** Fails its first `failures` runs, then is done. */
    step: {
      payload: z.object({ n: z.number(), failures: z.number() }),
      handle: (ctx, { n, failures }) => {
        const run = (runs.get(n) ?? 0) + 1;
        runs.set(n, run);
        if (run <= failures) throw new RetryableError(`step ${n} failed (run ${run})`);
        ctx.state.done.push(n);
      },
    },
  },
});

const job = Job.ref('j');

describe('the attempts of a message', () => {
  it('are kept with the handler and the error that failed the last, until the message is applied', async () => {
    runs.clear();
    const h = setup({ actors: [Job], maxAttempts: 3 });
    await h.client.send(job, 'step', { n: 1, failures: 1 });
    await h.worker.poll();

    expect(runs.get(1)).toBe(1);
    expect((await h.record(job.id))?.failing).toEqual({
      id: expect.any(String),
      at: expect.any(String),
      attempts: 1,
      since: h.clock.now(),
      handler: 'step',
      error: { code: ErrorCode.RETRYABLE, message: 'step 1 failed (run 1)' },
    });
    await h.run();
    expect(await h.state(job.id)).toEqual({ done: [1] });
    expect((await h.record(job.id))?.failing).toBeUndefined();
  });

  it("keep when the message's first attempt failed through its later attempts, anew for the next message", async () => {
    runs.clear();
    const h = setup({ actors: [Job], batchSize: 10, maxAttempts: 3 });
    // Each count the turns commit, with the time it was committed at.
    const counts: Array<{ id: string; attempts: number; since?: number; at: number }> = [];
    h.backend.feed.subscribe((r) => {
      if (r.id === job.id && r.failing) counts.push({ ...r.failing, at: h.clock.now() });
    });
    await h.client.send(job, 'step', { n: 1, failures: 99 });
    await h.client.send(job, 'step', { n: 2, failures: 2 });
    await h.run();

    const [first, second] = [...new Set(counts.map((c) => c.id))];
    const of = (id: string | undefined) => counts.filter((c) => c.id === id);
    expect(of(first).map((c) => c.attempts)).toEqual([1, 2]);
    expect(of(second).map((c) => c.attempts)).toEqual([1, 2]);
    // Retried later and later: each attempt's count keeps the time of the message's first.
    for (const ofOne of [of(first), of(second)]) {
      expect(ofOne[1]!.at).toBeGreaterThan(ofOne[0]!.at);
      expect(ofOne.map((c) => c.since)).toEqual([ofOne[0]!.at, ofOne[0]!.at]);
    }
    expect(of(second)[0]!.since).toBeGreaterThan(of(first)[1]!.at);
    expect((await h.record(job.id))?.failing).toBeUndefined();
  });

  it('are its own: one behind a message that ran out of attempts is tried maxAttempts times too', async () => {
    runs.clear();
    const h = setup({ actors: [Job], batchSize: 10, maxAttempts: 3 });
    await h.client.send(job, 'step', { n: 1, failures: 99 });
    await h.client.send(job, 'step', { n: 2, failures: 2 });
    await h.client.send(job, 'step', { n: 3, failures: 0 });
    await h.run();

    // Step 2 waited through step 1's three receives, then got three tries of its own.
    expect(Object.fromEntries(runs)).toEqual({ 1: 3, 2: 3, 3: 1 });
    expect(await h.state(job.id)).toEqual({ done: [2, 3] });
    const letters = await h.backend.store.listDeadLetters(job.id);
    expect(letters.map((l) => [l.envelope.payload, l.attempts])).toEqual([
      [{ n: 1, failures: 99 }, 3],
    ]);
    // Nothing is left counting: the inbox moved on.
    expect((await h.record(job.id))?.failing).toBeUndefined();
  });

  it("end a failing message in the actor's turn at its last receive, before the queue would take it and those behind it", async () => {
    runs.clear();
    const h = setup({ actors: [Job], batchSize: 10, maxAttempts: 3, maxReceives: 4 });
    await h.client.send(job, 'step', { n: 1, failures: 99 });
    await h.client.send(job, 'step', { n: 2, failures: 99 });
    await h.client.send(job, 'step', { n: 3, failures: 0 });
    await h.run();

    // Step 2 was tried at its third and fourth receives: the fourth was its last.
    expect(Object.fromEntries(runs)).toEqual({ 1: 3, 2: 2, 3: 1 });
    expect(await h.state(job.id)).toEqual({ done: [3] });
    const letters = await h.backend.store.listDeadLetters(job.id);
    expect(letters.map((l) => [l.envelope.payload, l.attempts])).toEqual([
      [{ n: 1, failures: 99 }, 3],
      [{ n: 2, failures: 99 }, 2],
    ]);
    expect(h.backend.queue.deadLetters()).toEqual([]);
  });

  it("follow the queue's redrive policy as it changes while the worker runs", async () => {
    runs.clear();
    const h = setup({ actors: [Job], batchSize: 10, maxAttempts: 3, maxReceives: 10 });
    // The queue reports 4 receives, then 10 once the operator raised its limit.
    let reported = 4;
    const queue = new Proxy(h.backend.queue as Queue, {
      get: (target, prop) => {
        if (prop === 'redrivePolicy') return async () => ({ maxReceives: reported });
        const value = Reflect.get(target, prop, target);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    const ports = { store: h.backend.store, queue, clock: h.clock, logger: silentLogger };
    const worker = new Worker(createEngine({ actors: [Job], ...ports, batchSize: 10 }));
    await h.client.send(job, 'step', { n: 0, failures: 0 });
    await runUntilIdle(worker, h.backend, h.clock);

    reported = 10;
    await h.client.send(job, 'step', { n: 1, failures: 99 });
    await h.client.send(job, 'step', { n: 2, failures: 2 });
    await runUntilIdle(worker, h.backend, h.clock);
    // Step 2 had room for its three tries (receives 3 to 5), as the queue now gives.
    expect(Object.fromEntries(runs)).toEqual({ 0: 1, 1: 3, 2: 3 });
    expect(await h.state(job.id)).toMatchObject({ done: [0, 2] });
  });

  it("go by the queue's receives on a record too full to count in", async () => {
    runs.clear();
    const max = 2000;
    const { logger, lines } = recordingLogger();
    const h = setup({ actors: [Job], limits: { maxItemBytes: max }, maxAttempts: 3, logger });
    // The record filled as far as its item takes: the largest pad applied.
    await h.client.send(job, 'pad', { bytes: 1 });
    await h.run();
    const room = max - jsonSize(await h.record(job.id));
    for (let slack = 4; ; slack += 2) {
      await h.client.send(job, 'pad', { bytes: room - slack });
      await h.run();
      const { pad } = (await h.state(job.id)) as { pad?: string };
      if (pad?.length === room - slack) break;
    }
    expect(max - jsonSize(await h.record(job.id))).toBeLessThan(100);
    await h.client.send(job, 'step', { n: 1, failures: 99 });
    await h.client.send(job, 'step', { n: 2, failures: 0 });
    await h.run();
    expect(lines.filter((line) => line.message.startsWith('turn failed'))).toEqual([]);
    expect(runs.get(1)).toBe(3);
    const letters = await h.backend.store.listDeadLetters(job.id);
    const cause = (l: (typeof letters)[number]) => (l.error.details.cause as { code: string }).code;
    // The pads that did not fit were kept too, for their state (STATE_TOO_LARGE).
    const pads = letters.filter((l) => l.envelope.name === 'pad');
    expect([...new Set(pads.map(cause))]).toEqual([ErrorCode.STATE_TOO_LARGE]);
    const steps = letters.filter((l) => l.envelope.name === 'step');
    expect(steps.map((l) => [l.envelope.payload, cause(l)])).toEqual([
      [{ n: 1, failures: 99 }, ErrorCode.RETRYABLE],
      // The message behind it ran (its state too large for the record: kept, not stuck).
      [{ n: 2, failures: 0 }, ErrorCode.STATE_TOO_LARGE],
    ]);
    expect(steps[0]!.attempts).toBe(3);
    expect(runs.get(2)).toBe(1);
  });
});
