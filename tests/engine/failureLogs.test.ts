/**
 * What the engine logs when a message fails: a warning for each failed attempt (with the
 * handler's stack; the last one's says it is kept, not retried), a warning for a rejection, and
 * one error line for every dead letter — the line the dead-letter alarm counts, so its text is a
 * contract with deployed alarms.
 */
import { actor, TerminalError } from '@baton/core';
import { redriveDeadLetter } from '@baton/core/engine';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { recordingLogger, setup } from './helpers.ts';

/** How many times `crash` ran. */
let crashRuns = 0;

const Job = actor({
  name: 'job',
  state: z.object({ done: z.number() }),
  initial: () => ({ done: 0 }),
  handlers: {
    /** Fails every time with an Error (a bug in the handler). */
    crash: {
      payload: z.object({}),
      handle: () => {
        crashRuns++;
        throw new Error('database unreachable');
      },
    },
    /** Fails every time with a thrown string: there is no stack to log. */
    crashBare: {
      payload: z.object({}),
      handle: () => {
        throw 'no stack here';
      },
    },
    refuse: {
      payload: z.object({}),
      handle: () => {
        throw new TerminalError('not allowed');
      },
    },
    work: {
      payload: z.object({}),
      handle: (ctx) => {
        ctx.state.done++;
      },
    },
    /** Sends `count` messages: more than one commit holds, past a small transaction limit. */
    fanOut: {
      payload: z.object({ count: z.number().int() }),
      handle: (ctx, { count }) => {
        for (let i = 0; i < count; i++) ctx.send(Job.ref('sink'), 'work', {});
      },
    },
  },
});

describe('what a failing message logs', () => {
  it("warns of each retry with its attempt and stack, then logs the dead letter the alarm counts, with its last error's code", async () => {
    const { logger, lines } = recordingLogger();
    const h = setup({ actors: [Job], logger, maxAttempts: 3 });
    const { messageId } = await h.client.send(Job.ref('j'), 'crash', {});
    await h.run();

    // Each failure of the handler, the last one included (its stack is logged only here); the
    // exact texts, which operators search the log for. The last one claims no retry.
    const failures = lines.filter((line) => line.level === 'warn');
    expect(failures).toEqual(
      [1, 2, 3].map((attempt) => ({
        level: 'warn',
        message:
          attempt < 3
            ? 'message will be retried'
            : 'message failed its last attempt; it is kept as a dead letter',
        fields: {
          actor: 'job/j',
          messageId,
          attempt,
          error: 'unexpected error: database unreachable',
          stack: expect.stringContaining('Error: database unreachable'),
        },
      })),
    );
    // The exact text: deployed log-metric alarms match it.
    expect(lines.filter((line) => line.level === 'error')).toEqual([
      {
        level: 'error',
        message: 'message dead-lettered: it failed every attempt',
        fields: {
          actor: 'job/j',
          messageId,
          attempts: 3,
          code: 'RETRYABLE',
          error: 'unexpected error: database unreachable',
        },
      },
    ]);
    expect(await h.backend.store.listDeadLetters('job/j')).toMatchObject([
      { messageId, attempts: 3, error: { code: 'DEAD_LETTERED' } },
    ]);
  });

  it("tells the sender a dead letter without an unexpected error's text, which the letter and the log keep", async () => {
    const { logger, lines } = recordingLogger();
    const h = setup({ actors: [Job], logger, maxAttempts: 2 });
    const { messageId } = await h.client.send(Job.ref('j'), 'crash', {});
    const refused = await h.client.send(Job.ref('j'), 'refuse', {});
    await h.run();

    const told = await h.client.outcome(messageId);
    expect(told).toMatchObject({ ok: false, error: { code: 'DEAD_LETTERED' } });
    expect(JSON.stringify(told)).not.toContain('database unreachable');
    expect(told?.ok === false && told.error.message).toContain(
      "(last: an unexpected error; its text is in the server's log)",
    );
    const [kept] = await h.backend.store.listDeadLetters('job/j');
    expect(JSON.stringify(kept?.error)).toContain('unexpected error: database unreachable');
    expect(lines.find((line) => line.level === 'error')?.fields.error).toBe(
      'unexpected error: database unreachable',
    );
    // An error the handler meant for the caller is told as it is.
    expect(await h.client.outcome(refused.messageId)).toMatchObject({
      ok: false,
      error: { code: 'REJECTED', message: 'not allowed' },
    });
  });

  it('logs no stack for a thrown value that has none', async () => {
    const { logger, lines } = recordingLogger();
    const h = setup({ actors: [Job], logger, maxAttempts: 2 });
    await h.client.send(Job.ref('j'), 'crashBare', {});
    await h.run();

    const retries = lines.filter((line) => line.level === 'warn');
    expect(retries.map((line) => [line.message, line.fields.attempt])).toEqual([
      ['message will be retried', 1],
      ['message failed its last attempt; it is kept as a dead letter', 2],
    ]);
    for (const retry of retries) {
      expect(retry.fields).toMatchObject({ error: 'unexpected error: no stack here' });
      expect(retry.fields).not.toHaveProperty('stack');
    }
  });

  it('warns of a rejection with its code, and dead-letters nothing', async () => {
    const { logger, lines } = recordingLogger();
    const h = setup({ actors: [Job], logger });
    const { messageId } = await h.client.send(Job.ref('j'), 'refuse', {});
    await h.client.send(Job.ref('j'), 'work', {});
    await h.run();

    expect(lines).toEqual([
      {
        level: 'warn',
        message: 'message rejected',
        fields: { actor: 'job/j', messageId, code: 'REJECTED', error: 'not allowed' },
      },
    ]);
    expect(await h.state('job/j')).toEqual({ done: 1 });
    expect(await h.backend.store.listDeadLetters('job/j')).toEqual([]);
  });

  it("logs a message the engine ends at once, without retries, with a line of its own that the alarm counts too, giving the reason and its cause's code", async () => {
    const { logger, lines } = recordingLogger();
    const h = setup({
      actors: [Job],
      logger,
      limits: { maxTransactionItems: 5, maxItemBytes: 1000 },
    });
    const { messageId } = await h.client.send(Job.ref('j'), 'fanOut', { count: 40 });
    await h.run();

    const errors = lines.filter((line) => line.level === 'error');
    expect(errors).toEqual([
      {
        level: 'error',
        message: 'message dead-lettered at once: a retry would not apply it',
        // Its reason is the error itself: said once.
        fields: {
          actor: 'job/j',
          messageId,
          attempts: 1,
          code: 'MESSAGE_TOO_LARGE',
          error: expect.stringContaining('produces more than one commit can hold'),
        },
      },
    ]);
    expect(await h.state('job/sink')).toBeUndefined();
  });

  it('logs a dead letter once, its handler run once, when a redrive follows it in the batch of a warm worker', async () => {
    const { logger, lines } = recordingLogger();
    const h = setup({ actors: [Job], logger, maxAttempts: 1, batchSize: 4 });
    const first = await h.client.send(Job.ref('j'), 'crash', {});
    await h.client.send(Job.ref('j'), 'work', {});
    await h.run();
    // The worker holds the record warm; a failing message, then the redrive of the first, arrive
    // in one batch. A redrive may follow a change made outside the actor's turns, so the turn
    // reads the store: a turn that took the warm record found that out after it had handled
    // (and logged) the failing message, and handled it again.
    crashRuns = 0;
    const second = await h.client.send(Job.ref('j'), 'crash', {});
    await redriveDeadLetter(h.backend.store, h.backend.queue, 'job/j', first.messageId);
    const logged = lines.length;
    await h.run();

    expect(crashRuns).toBe(2);
    const deadLettered = lines.slice(logged).filter((line) => line.level === 'error');
    expect(deadLettered.map((line) => line.fields.messageId)).toEqual([
      second.messageId,
      first.messageId,
    ]);
    expect(await h.state('job/j')).toEqual({ done: 1 });
  });
});
