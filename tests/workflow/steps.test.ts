/**
 * Workflows on the embedded backend: a start runs the steps, calls and sends of the run once
 * each, its result is the output, and a step that fails is retried on durable backoff.
 */
import {
  actor,
  BatonError,
  defineApp,
  ErrorCode,
  TerminalError,
  type WorkflowState,
  workflow,
} from '@baton/core';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { answered } from '../engine/helpers.ts';
import { workflowHarness } from './harness.ts';

const Stock = actor({
  name: 'stock',
  state: z.object({ reserved: z.number(), notes: z.array(z.string()) }),
  initial: () => ({ reserved: 0, notes: [] as string[] }),
  handlers: {
    reserve: {
      payload: z.object({ qty: z.number() }),
      handle: (ctx, { qty }) => {
        ctx.state.reserved += qty;
        return { reserved: ctx.state.reserved };
      },
    },
    note: {
      payload: z.object({ text: z.string() }),
      handle: (ctx, { text }) => {
        ctx.state.notes.push(text);
      },
    },
  },
});

/** Counts every run of every step, by step name, with the keys each saw. */
function stepLog() {
  const runs: { name: string; key: string; attempt: number }[] = [];
  return {
    runs,
    count: (name: string) => runs.filter((r) => r.name === name).length,
    // What the step was given but its signal, which every attempt has.
    record: (
      name: string,
      { signal: _, ...info }: { key: string; attempt: number; signal: AbortSignal },
    ) => runs.push({ name, ...info }),
  };
}

describe('a workflow', () => {
  it('runs each step and each actor call once, and its result is the output', async () => {
    const log = stepLog();
    const Order = workflow({
      name: 'order',
      input: z.object({ sku: z.string(), qty: z.number() }),
      run: async (ctx, { sku, qty }) => {
        const price = await ctx.step('price', (info) => {
          log.record('price', info);
          return 7;
        });
        const reply = await ctx.call(Stock.ref(sku), 'reserve', { qty });
        ctx.send(Stock.ref(sku), 'note', { text: `ordered ${qty}` });
        const receipt = await ctx.step('receipt', (info) => {
          log.record('receipt', info);
          return `paid ${price * qty}`;
        });
        return { receipt, reserved: (reply as { reserved: number }).reserved };
      },
    });
    const app = defineApp({ actors: [Stock], workflows: [Order] });
    const h = workflowHarness(app.actors);

    const ref = await h.client.start(Order, 'o-1', { sku: 'apple', qty: 3 });
    await h.runAll();

    expect(await h.client.result(ref)).toEqual({ receipt: 'paid 21', reserved: 3 });
    expect(log.count('price')).toBe(1);
    expect(log.count('receipt')).toBe(1);
    expect(await h.state(Stock.ref('apple').id)).toEqual({ reserved: 3, notes: ['ordered 3'] });
    expect(await h.client.workflowStatus(ref)).toMatchObject({ status: 'completed', steps: 4 });
  });

  it('keys each step by the instance, its run, its name and how many of that name came before', async () => {
    const log = stepLog();
    const Batch = workflow({
      name: 'batch',
      input: z.object({}),
      run: async (ctx) => {
        for (const item of ['a', 'b']) {
          await ctx.call(Stock.ref(item), 'reserve', { qty: 1 });
          await ctx.step('pack', (info) => log.record('pack', info));
        }
        // Only steps and compensations count: a wait of the same name does not.
        await ctx.waitForEvent('ship', { timeoutMs: 1_000 }).catch(() => undefined);
        await ctx.step('ship', (info) => log.record('ship', info));
      },
    });
    const h = workflowHarness(defineApp({ actors: [Stock], workflows: [Batch] }).actors);
    await h.client.start(Batch, 'b-1', {});
    await h.runAll();

    const runId = ((await h.state(Batch.ref('b-1').id)) as { runId: string }).runId;
    // Not by command number: a command added before a step in a deploy leaves its key as it was.
    expect(log.runs.map((r) => r.key)).toEqual([
      `wf-batch/b-1:${runId}:pack:0`,
      `wf-batch/b-1:${runId}:pack:1`,
      `wf-batch/b-1:${runId}:ship:0`,
    ]);
  });

  it('gives a compensation a key of its own, counted with the steps of its name', async () => {
    const log = stepLog();
    const Refunded = workflow({
      name: 'refunded',
      input: z.object({}),
      // More attempts than a step's default 3: the compensation retries by this policy.
      compensationRetry: { maxAttempts: 4, initialDelayMs: 1_000 },
      run: async (ctx) => {
        await ctx.step('charge', (info) => log.record('charge', info), {
          compensate: (_, info) => {
            log.record('refund', info);
            if (info.attempt < 4) throw new Error('payment service unavailable');
          },
        });
        await ctx.step('charge', (info) => log.record('charge', info));
        throw new TerminalError('out of stock');
      },
    });
    const h = workflowHarness([Refunded.actor]);
    const ref = await h.client.start(Refunded, 'r', {});
    await h.runAll();

    expect(await h.client.workflowStatus(ref)).toMatchObject({ status: 'failed' });
    const runId = ((await h.state(ref.id)) as { runId: string }).runId;
    // The refund's key is neither charge's: the outside service tells the three apart.
    expect(log.runs).toEqual([
      { name: 'charge', key: `${ref.id}:${runId}:charge:0`, attempt: 1 },
      { name: 'charge', key: `${ref.id}:${runId}:charge:1`, attempt: 1 },
      ...[1, 2, 3, 4].map((attempt) => ({
        name: 'refund',
        key: `${ref.id}:${runId}:charge:2`,
        attempt,
        // What the charge it undoes was made with, and its attempts.
        stepKey: `${ref.id}:${runId}:charge:0`,
        stepAttempts: 1,
      })),
    ]);
    // Refunded in the end: no compensation failed.
    expect((await h.client.workflowStatus(ref)).error?.details).not.toHaveProperty(
      'compensationErrors',
    );
  });

  it('names a compensation that failed for good as the compensation of its step, not the step', async () => {
    const Unrefunded = workflow({
      name: 'unrefunded',
      input: z.object({}),
      run: async (ctx) => {
        await ctx.step('charge', () => 'charged', {
          compensate: () => {
            throw new TerminalError('refunds are closed');
          },
        });
        throw new TerminalError('out of stock');
      },
    });
    const h = workflowHarness([Unrefunded.actor]);
    const ref = await h.client.start(Unrefunded, 'u', {});
    await h.runAll();

    const status = await h.client.workflowStatus(ref);
    expect(status).toMatchObject({ status: 'failed' });
    expect(status.error?.details?.compensationErrors).toEqual([
      expect.objectContaining({
        code: ErrorCode.STEP_FAILED,
        message: 'the compensation of step "charge" failed after 1 attempt: refunds are closed',
        details: expect.objectContaining({ step: 'charge', compensation: true }),
      }),
    ]);
  });

  it('retries a step with maxAttempts Infinity until it passes, the waits capped at maxDelayMs', async () => {
    let attempts = 0;
    const Patient = workflow({
      name: 'patient',
      input: z.object({}),
      run: (ctx) =>
        ctx.step(
          'charge',
          () => {
            if (++attempts < 12) throw new Error('payment service unavailable');
            return 'charged';
          },
          {
            retry: { maxAttempts: Number.POSITIVE_INFINITY, initialDelayMs: 10, maxDelayMs: 1_000 },
          },
        ),
    });
    const h = workflowHarness([Patient.actor]);
    const ref = await h.client.start(Patient, 'p', {});
    await h.runAll();
    expect(await h.client.result(ref)).toBe('charged');
    expect(attempts).toBe(12);
  });

  it("withholds the text of a public workflow's unexpected error from the step's last error", async () => {
    const failing = (name: string, open: boolean) =>
      workflow({
        name,
        input: z.object({}),
        public: open,
        run: (ctx) =>
          ctx.step(
            'charge',
            ({ attempt }) => {
              if (attempt === 1) throw new Error('psp key sk_live_123 refused');
              return 'charged';
            },
            { retry: { maxAttempts: 2, initialDelayMs: 60_000 } },
          ),
      });
    const [Open, Closed] = [failing('open', true), failing('closed', false)];
    const h = workflowHarness([Open.actor, Closed.actor]);
    const lastError = async (ref: { id: string }) =>
      ((await h.state(ref.id)) as WorkflowState).journal.find((e) => e.kind === 'step')?.lastError;
    const open = await h.client.start(Open, 'o', {});
    const closed = await h.client.start(Closed, 'c', {});
    await h.runAll({ until: h.clock.now() + 1_000 });
    expect(await lastError(open)).toBe(
      "RETRYABLE: an unexpected error; its text is in the server's log",
    );
    // Only trusted code reads an internal workflow: its text is kept.
    expect(await lastError(closed)).toBe(
      'RETRYABLE: unexpected error: psp key sk_live_123 refused',
    );
  });

  it("journals a retried step's last error until it passes, and how long its last attempt ran", async () => {
    const Slow = workflow({
      name: 'slow',
      input: z.object({}),
      run: (ctx) =>
        ctx.step(
          'charge',
          async ({ attempt }) => {
            await new Promise((resolve) => setTimeout(resolve, 40));
            if (attempt === 1) throw new BatonError(ErrorCode.UNAVAILABLE, 'psp answered 503');
            return 'charged';
          },
          { retry: { maxAttempts: 2, initialDelayMs: 60_000 } },
        ),
    });
    const h = workflowHarness([Slow.actor]);
    const ref = await h.client.start(Slow, 's', {});
    const entry = async () =>
      ((await h.state(ref.id)) as WorkflowState).journal.find((e) => e.kind === 'step');

    await h.runAll({ until: h.clock.now() + 1_000 });
    const waiting = await entry();
    expect(waiting).toMatchObject({ state: 'pending', lastError: 'UNAVAILABLE: psp answered 503' });
    // The turn's clock stood still; the attempt's own time did not.
    expect(waiting?.ranMs).toBeGreaterThanOrEqual(35);

    await h.runAll();
    expect(await h.client.result(ref)).toBe('charged');
    const done = await entry();
    expect(done).toMatchObject({ state: 'done', attempts: 2 });
    expect(done).not.toHaveProperty('lastError');
    expect(done?.ranMs).toBeGreaterThanOrEqual(35);
  });

  it('keeps numbered keys for a run started before keys counted names, across its attempts', async () => {
    const log = stepLog();
    const Legacy = workflow({
      name: 'legacy',
      input: z.object({}),
      run: async (ctx) => {
        await ctx.waitForEvent('go');
        return ctx.step(
          'charge',
          (info) => {
            log.record('charge', info);
            if (info.attempt === 1) throw new Error('payment service unavailable');
            return 'charged';
          },
          { retry: { maxAttempts: 3, initialDelayMs: 1_000 } },
        );
      },
    });
    const h = workflowHarness([Legacy.actor]);
    const ref = await h.client.start(Legacy, 'l', {});
    await h.runAll();
    // The record as an earlier version left it: no `stepKeys`.
    await h.rewriteState(ref.id, ({ stepKeys: _keys, ...state }) => state);
    const { runId } = (await h.state(ref.id)) as WorkflowState;
    await h.client.signal(ref, 'go');
    await h.runAll();

    expect(await h.client.result(ref)).toBe('charged');
    // Command 1 (the wait is command 0), the same in both attempts.
    expect(log.runs.map((r) => r.key)).toEqual([`${ref.id}:${runId}:1`, `${ref.id}:${runId}:1`]);
  });

  it('leaves a finished instance as it ended when a late wake-up reaches it', async () => {
    const log = stepLog();
    const Done = workflow({
      name: 'done',
      input: z.object({}),
      run: (ctx) => ctx.step('work', (info) => log.record('work', info)),
    });
    const h = workflowHarness([Done.actor]);
    const ref = await h.client.start(Done, 'd', {});
    await h.runAll();
    const ended = (await h.state(ref.id)) as WorkflowState;
    const timers = await h.backend.store.listTimers(ref.id);
    expect(ended.status).toBe('completed');

    // A timer it scheduled while running, say, fires after it ended.
    h.clock.advance(60_000);
    await h.client.send(Done.ref('d') as never, '_wake' as never, {} as never);
    await h.runAll({ until: h.clock.now() });
    expect(await h.state(ref.id)).toEqual(ended);
    expect(await h.backend.store.listTimers(ref.id)).toEqual(timers);
    expect(log.count('work')).toBe(1);
  });

  it('runs nothing for a wake-up that reaches an instance never started', async () => {
    const log = stepLog();
    const Idle = workflow({
      name: 'idle',
      input: z.object({}),
      run: (ctx) => ctx.step('work', (info) => log.record('work', info)),
    });
    const h = workflowHarness([Idle.actor]);
    await h.client.send(Idle.ref('i') as never, '_wake' as never, {} as never);
    await h.runAll();
    expect(await h.state(Idle.ref('i').id)).toMatchObject({ status: 'new', journal: [] });
    expect(log.count('work')).toBe(0);
  });

  it('is started once per id: starting it again neither reruns it nor changes its outcome', async () => {
    const log = stepLog();
    const Once = workflow({
      name: 'once',
      input: z.object({ n: z.number() }),
      run: async (ctx, { n }) => {
        await ctx.call(Stock.ref('pear'), 'reserve', { qty: n });
        return ctx.step('work', (info) => {
          log.record('work', info);
          return n;
        });
      },
    });
    const h = workflowHarness(defineApp({ actors: [Stock], workflows: [Once] }).actors);
    const ref = await h.client.start(Once, 'x', { n: 1 });
    await h.client.start(Once, 'x', { n: 1 });
    await h.runAll();
    await expect(h.client.start(Once, 'x', { n: 2 })).rejects.toMatchObject({
      code: ErrorCode.REJECTED,
    });
    await h.runAll();

    expect(await h.client.result(ref)).toBe(1);
    expect(log.count('work')).toBe(1);
    expect(await h.state(Stock.ref('pear').id)).toMatchObject({ reserved: 1 });

    // Asked, a start with the same input answers the instance; one with another is refused.
    const start = (n: number) =>
      answered(h, h.client.ask(ref as never, 'start' as never, { input: { n } } as never));
    await expect(start(1)).resolves.toMatchObject({ status: 'completed' });
    await expect(start(2)).rejects.toMatchObject({
      code: ErrorCode.REJECTED,
      message:
        'workflow instance x ran already (completed), started with another input: this start was not taken, and its id starts anew only once it halts, its retentionMs after it ended. Start another id, or read this instance',
      details: { id: 'x', status: 'completed' },
    });
  });

  it('refuses a start with another input while the instance runs, saying what to do', async () => {
    const Waiter = workflow({
      name: 'waiter',
      input: z.object({ n: z.number() }),
      events: { go: z.object({}) },
      run: async (ctx, { n }) => {
        await ctx.waitForEvent('go');
        return n;
      },
    });
    const h = workflowHarness([Waiter.actor]);
    const ref = await h.client.start(Waiter, 'w', { n: 1 });
    await h.runAll();
    const start = answered(
      h,
      h.client.ask(ref as never, 'start' as never, { input: { n: 2 } } as never),
    );
    await expect(start).rejects.toMatchObject({
      code: ErrorCode.REJECTED,
      message:
        'workflow instance w runs already (waiting), started with another input: this start was not taken. Start another id, or read (or signal) this instance',
      details: { id: 'w', status: 'waiting' },
    });
  });

  it('retries a failing step on durable backoff with one key, and goes on with its result', async () => {
    const log = stepLog();
    const Flaky = workflow({
      name: 'flaky',
      input: z.object({}),
      run: async (ctx) =>
        ctx.step(
          'charge',
          (info) => {
            log.record('charge', info);
            if (info.attempt < 3) throw new Error('payment service unavailable');
            return 'charged';
          },
          { retry: { maxAttempts: 5, initialDelayMs: 60_000 } },
        ),
    });
    const h = workflowHarness([Flaky.actor]);
    const started = h.clock.now();
    const ref = await h.client.start(Flaky, 'f', {});
    await h.runAll({ until: started });
    // Its step waits out a backoff: the run is busy, not waiting for the outside.
    expect(await h.client.workflowStatus(ref)).toMatchObject({ status: 'running' });
    await h.runAll();

    expect(await h.client.result(ref)).toBe('charged');
    expect(log.runs.map((r) => r.attempt)).toEqual([1, 2, 3]);
    expect(new Set(log.runs.map((r) => r.key)).size).toBe(1);
    // 1 min, then 2 min: the waits passed on the clock, as timers.
    expect(h.clock.now() - started).toBe(180_000);
  });

  it('throws STEP_FAILED into the run after the last attempt, which may catch it', async () => {
    let attempts = 0;
    const Doomed = workflow({
      name: 'doomed',
      input: z.object({ catchIt: z.boolean() }),
      run: async (ctx, { catchIt }) => {
        try {
          await ctx.step(
            'never',
            () => {
              attempts++;
              throw new Error('always down');
            },
            { retry: { maxAttempts: 2, initialDelayMs: 10 } },
          );
          return 'unreachable';
        } catch (error) {
          if (!catchIt) throw error;
          return `caught ${(error as BatonError).code}`;
        }
      },
    });
    const h = workflowHarness([Doomed.actor]);
    const caught = await h.client.start(Doomed, 'a', { catchIt: true });
    const failed = await h.client.start(Doomed, 'b', { catchIt: false });
    await h.runAll();

    expect(await h.client.result(caught)).toBe('caught STEP_FAILED');
    await expect(h.client.result(failed)).rejects.toMatchObject({
      code: ErrorCode.STEP_FAILED,
      message: expect.stringContaining(
        'step "never" failed after 2 attempts: unexpected error: always down',
      ),
    });
    expect(attempts).toBe(4);
    expect(await h.client.workflowStatus(failed)).toMatchObject({ status: 'failed' });
  });

  it('fails a step that throws TerminalError at once, with no retry left to wait for', async () => {
    let attempts = 0;
    const Declined = workflow({
      name: 'declined',
      input: z.object({}),
      run: async (ctx) => {
        await ctx.step(
          'charge',
          () => {
            attempts++;
            throw new TerminalError('card declined');
          },
          { retry: { maxAttempts: 5, initialDelayMs: 10 } },
        );
        return 'charged';
      },
    });
    const h = workflowHarness([Declined.actor]);
    const ref = await h.client.start(Declined, 'd', {});
    await h.runAll();
    await expect(h.client.result(ref)).rejects.toMatchObject({
      code: ErrorCode.STEP_FAILED,
      message: 'step "charge" failed after 1 attempt: card declined',
      details: { cause: { code: ErrorCode.REJECTED, message: 'card declined' } },
    });
    expect(attempts).toBe(1);
  });

  it('fails with REJECTED and the message when the run itself throws a TerminalError', async () => {
    const Broken = workflow({
      name: 'broken',
      input: z.object({}),
      run: async (ctx) => {
        await ctx.step('fine', () => 1);
        throw new TerminalError('the order has no lines');
      },
    });
    const h = workflowHarness([Broken.actor]);
    const ref = await h.client.start(Broken, 'b', {});
    await h.runAll();
    await expect(h.client.result(ref)).rejects.toMatchObject({
      code: ErrorCode.REJECTED,
      message: 'the order has no lines',
    });
  });

  it('fails a step whose result is too large to journal, or not JSON, at once, and the instance goes on', async () => {
    let runs = 0;
    const Big = workflow({
      name: 'big',
      input: z.object({ bigint: z.boolean() }),
      run: async (ctx, { bigint }) => {
        try {
          await ctx.step('export', () => {
            runs++;
            return bigint ? { big: 10n } : 'x'.repeat(100_000);
          });
        } catch (error) {
          return (error as BatonError).message;
        }
      },
    });
    const h = workflowHarness([Big.actor]);
    const ref = await h.client.start(Big, 'b', { bigint: false });
    await h.runAll();
    expect(await h.client.result(ref)).toMatch(
      /^step "export" failed after 1 attempt: the result of step "export" is 100002 bytes, more than the 65536/,
    );
    expect(runs).toBe(1);
    const mapped = await h.client.start(Big, 'm', { bigint: true });
    await h.runAll();
    expect(await h.client.result(mapped)).toMatch(
      /^step "export" failed after 1 attempt: the result of step "export" is not JSON \(Do not know how to serialize a BigInt/,
    );
    expect(runs).toBe(2);
  });

  it('journals a step result holding a Map or a Set as JSON keeps it ({}), unlike state a handler leaves, and so ends with such an output', async () => {
    const seen = new Set<string>();
    const Collect = workflow({
      name: 'collect',
      input: z.object({}),
      run: async (ctx) => {
        // Set.prototype.add returns the Set.
        const added = await ctx.step('remember', () => seen.add('a'));
        const index = await ctx.step('index', () => ({ by: new Map([['a', 1]]), n: 1 }));
        return { added, index, out: new Set([1]) };
      },
    });
    const h = workflowHarness([Collect.actor]);
    const ref = await h.client.start(Collect, 'c', {});
    await h.runAll();
    expect(await h.client.result(ref)).toEqual({ added: {}, index: { by: {}, n: 1 }, out: {} });
    expect(await h.backend.store.listDeadLetters(ref.id)).toEqual([]);
  });

  it('fails on a step whose error holds a Set in its details, journaling the error as JSON keeps it', async () => {
    const Check = workflow({
      name: 'check',
      input: z.object({}),
      run: async (ctx) => {
        await ctx.step('validate', () => {
          throw new TerminalError('invalid items', { details: { bad: new Set(['x']) } });
        });
        return 'done';
      },
    });
    const h = workflowHarness([Check.actor]);
    const ref = await h.client.start(Check, 'c', {});
    await h.runAll();
    expect(await h.backend.store.listDeadLetters(ref.id)).toEqual([]);
    await expect(h.client.result(ref)).rejects.toMatchObject({ code: ErrorCode.STEP_FAILED });
  });

  it('fails on a run that throws an error holding a Map in its details, its details as JSON keeps them', async () => {
    const Refuse = workflow({
      name: 'refuse',
      input: z.object({}),
      run: async () => {
        throw new TerminalError('refused', { details: { seen: new Map([['a', 1]]) } });
      },
    });
    const h = workflowHarness([Refuse.actor]);
    const ref = await h.client.start(Refuse, 'r', {});
    await h.runAll();
    expect(await h.backend.store.listDeadLetters(ref.id)).toEqual([]);
    await expect(h.client.result(ref)).rejects.toMatchObject({
      message: 'refused',
      details: { seen: {} },
    });
  });

  it('refuses an input its schema refuses at the door, before anything is enqueued', async () => {
    const Typed = workflow({
      name: 'typed',
      input: z.object({ n: z.number() }),
      run: async (_ctx, { n }) => n,
    });
    const h = workflowHarness([Typed.actor]);
    await expect(h.client.start(Typed, 'a', { n: 'one' } as never)).rejects.toMatchObject({
      code: ErrorCode.INVALID_PAYLOAD,
      details: { issues: [expect.objectContaining({ path: 'payload.input.n' })] },
    });
    expect(h.backend.queue.counts()).toMatchObject({ visible: 0 });
  });

  it('commits at most maxStepsPerTurn steps per turn and goes on in the next turn', async () => {
    let ran = 0;
    const Long = workflow({
      name: 'long',
      input: z.object({}),
      maxStepsPerTurn: 2,
      run: async (ctx) => {
        for (let i = 0; i < 5; i++) await ctx.step(`s${i}`, () => ++ran);
        return ran;
      },
    });
    const h = workflowHarness([Long.actor]);
    const ref = await h.client.start(Long, 'l', {});
    await h.runAll();
    expect(await h.client.result(ref)).toBe(5);
    // start + two wakes, each committing at most two steps: 3 commits of the instance.
    expect((await h.record(ref.id))?.ver).toBe(3);
  });
});

it('rejects a workflow definition that is not one, naming every problem', () => {
  expect(() =>
    workflow({ name: '9x', input: {} as never, run: 'no' as never, retentionMs: -1 }),
  ).toThrow(
    expect.objectContaining({
      code: ErrorCode.INVALID_ARGUMENT,
      message:
        'workflow "9x" is not valid: name must be a letter followed by letters, digits, "-" or "_"; input must be a zod schema; run must be an async function (ctx, input); retentionMs must be a number of ms > 0 and at most 1e14 (about 3,000 years), or Infinity for no limit',
    }),
  );
});
