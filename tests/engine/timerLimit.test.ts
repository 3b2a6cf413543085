/**
 * Each timer a turn schedules is an item of its commit: a handler schedules at most what fits one
 * transaction (about 90 on DynamoDB's 100 items), and one that schedules more is kept as a dead
 * letter, MESSAGE_TOO_LARGE its cause, with none of its timers stored and its state unchanged.
 */
import { actor, ErrorCode } from '@baton/core';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { setup } from './helpers.ts';

const Alarm = actor({
  name: 'alarm',
  state: z.object({ set: z.number() }),
  initial: () => ({ set: 0 }),
  handlers: {
    setMany: {
      payload: z.object({ count: z.number() }),
      handle: (ctx, { count }) => {
        for (let i = 0; i < count; i++) ctx.schedule(60_000, 'ring', {}, { id: `t${i}` });
        ctx.state.set = count;
      },
    },
    ring: { payload: z.object({}), handle: () => {} },
  },
});

describe('timers past what one commit holds', () => {
  it('keeps the message that schedules them as a dead letter, storing none of them', async () => {
    // DynamoDB's transaction limit, as DynamoStore announces it.
    const h = setup({ actors: [Alarm], limits: { maxTransactionItems: 100 } });
    const alarm = Alarm.ref('a');
    await h.client.send(alarm, 'setMany', { count: 90 });
    await h.run();
    expect(await h.state(alarm.id)).toEqual({ set: 90 });
    expect(await h.backend.store.listTimers(alarm.id)).toHaveLength(90);

    await h.client.send(alarm, 'setMany', { count: 120 });
    await h.run();
    expect(await h.state(alarm.id)).toEqual({ set: 90 });
    expect(await h.backend.store.listTimers(alarm.id)).toHaveLength(90);
    const [letter] = await h.backend.store.listDeadLetters(alarm.id);
    expect(letter?.error).toMatchObject({
      code: ErrorCode.DEAD_LETTERED,
      details: { cause: { code: ErrorCode.MESSAGE_TOO_LARGE } },
    });
    expect(letter?.error.message).toMatch(/produces more than one commit can hold \(100 items/);
  });
});
