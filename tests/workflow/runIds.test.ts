/**
 * A workflow id started anew gets new step keys ("its id may then start anew, with new step
 * keys"), also when the start reuses a client key whose claim has lapsed: such a start's message
 * has the same id as the first run's (an ingress id is the client's key, scoped by target and
 * caller), so the run id also takes the time of the send that claimed the key.
 */
import { workflow } from '@baton/core';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { workflowHarness } from '../workflow/harness.ts';

const DAY = 24 * 60 * 60 * 1000;

describe('a workflow id started anew with a start key reused after its claim lapsed', () => {
  it('gives the new run new step keys, so an outside service charges it', async () => {
    // The payment service: one charge per idempotency key (as Stripe keeps keys).
    const charged = new Map<string, number>();
    const attempts: Array<{ amount: number; key: string }> = [];
    const Order = workflow({
      name: 'order',
      input: z.object({ amount: z.number() }),
      retentionMs: DAY,
      run: async (ctx, { amount }) =>
        ctx.step('charge', ({ key }) => {
          attempts.push({ amount, key });
          if (!charged.has(key)) charged.set(key, amount);
          return charged.get(key)!;
        }),
    });
    const h = workflowHarness([Order.actor]);
    const ref = Order.ref('o-1');
    // The app starts order o-1 with a key of its own making (HTTP /send needs one).
    await h.client.start(Order, 'o-1', { amount: 10 }, { idempotencyKey: 'start-o-1' });
    await h.runAll({ expire: true }); // completes, and halts a day later
    expect(await h.client.workflowStatus(ref)).toMatchObject({ status: 'new' });

    // Weeks later, past the key's claim (twice the 14-day retention), the id is started again.
    h.clock.advance(30 * DAY);
    await h.client.start(Order, 'o-1', { amount: 25 }, { idempotencyKey: 'start-o-1' });
    await h.runAll();

    expect(attempts.map((a) => a.amount)).toEqual([10, 25]);
    // Two runs, two charges: the second run's step must carry a key of its own.
    expect(new Set(attempts.map((a) => a.key)).size).toBe(2);
    expect(await h.client.result(ref)).toBe(25);
    expect([...charged.values()]).toEqual([10, 25]);
  });
});
