import { actor, type SerializedError, workflow } from '@baton/core';
import { describe, expectTypeOf, it } from 'vitest';
import * as z from 'zod';
import type { SentKey, SentOutcome } from './SentKey.ts';
import { Simulation } from './Simulation.ts';

const Account = actor({
  name: 'account',
  state: z.object({ balance: z.number() }),
  initial: () => ({ balance: 0 }),
  handlers: {
    deposit: {
      payload: z.object({ amount: z.number() }),
      handle: (ctx, { amount }) => {
        ctx.state.balance += amount;
        return { balance: ctx.state.balance, at: new Date(0) };
      },
    },
  },
});

const Fulfil = workflow({
  name: 'fulfil',
  input: z.object({ orderId: z.string() }),
  run: async (_, { orderId }) => ({ orderId, shippedAt: new Date(0) }),
});

const sim = new Simulation({ actors: [Account], workflows: [Fulfil], seed: 1 });

describe('Simulation types', () => {
  it("types an outcome by its handler's reply, read back as JSON", async () => {
    const key = sim.send(Account.ref('alice'), 'deposit', { amount: 5 });
    expectTypeOf(key).toEqualTypeOf<SentKey<{ balance: number; at: string }>>();
    const outcome = await sim.outcome(key);
    expectTypeOf(outcome).toEqualTypeOf<SentOutcome<{ balance: number; at: string }> | undefined>();
    if (outcome?.ok) expectTypeOf(outcome.value).toEqualTypeOf<{ balance: number; at: string }>();
    else expectTypeOf(outcome!.error).toEqualTypeOf<SerializedError>();
    // A key a test wrote itself reads as unknown.
    const theirs = await sim.outcome('d1');
    if (theirs?.ok) expectTypeOf(theirs.value).toEqualTypeOf<unknown>();
  });

  it("types a workflow's output as its run returns it, read back as JSON", async () => {
    const status = await sim.workflowStatus(Fulfil.ref('o-1'));
    expectTypeOf(status.output).toEqualTypeOf<{ orderId: string; shippedAt: string } | undefined>();
  });
});
