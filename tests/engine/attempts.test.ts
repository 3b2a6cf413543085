/**
 * A message is tried `maxAttempts` times whatever waits before it. A FIFO group's batch comes
 * back whole when one of its messages fails, so the queue's receive count of a message behind a
 * failing one grows while it is never run: the record counts each head message's failures
 * instead. And a failing message is ended in the actor's turn at its last receive, rather than
 * left for the queue's own dead-letter queue with the messages behind it.
 */
import { actor, RetryableError } from '@baton/core';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { setup } from './helpers.ts';

/** Per message number, its handler's runs. */
const runs = new Map<number, number>();

const Job = actor({
  name: 'job',
  state: z.object({ done: z.array(z.number()) }),
  initial: () => ({ done: [] as number[] }),
  handlers: {
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
});
