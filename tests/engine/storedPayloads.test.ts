/**
 * Timer payloads and ask contexts are kept as JSON, as state is: what a handler schedules is
 * what fires, in the same process as after a restart or on DynamoDB. A payload that would not
 * survive that (a `Date` where the schema says `z.date()`) is refused when it is scheduled, in
 * the handler that scheduled it — never a timer that works in development and never fires in
 * production.
 */
import { type AskReply, actor, type BatonError, ErrorCode } from '@baton/core';
import { fireDueTimers } from '@baton/core/engine';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { answered, setup } from './helpers.ts';

const Echo = actor({
  name: 'echo',
  state: z.object({}),
  initial: () => ({}),
  handlers: { ping: { payload: z.object({}), handle: () => 'pong' } },
});

const Planner = actor({
  name: 'planner',
  state: z.object({ seen: z.array(z.string()) }),
  initial: () => ({ seen: [] as string[] }),
  handlers: {
    /** Schedules `strict` (z.date()) or `coerced` (z.coerce.date()) with a Date payload. */
    plan: {
      payload: z.object({ to: z.enum(['strict', 'coerced']) }),
      handle: (ctx, { to }) => {
        ctx.schedule(1_000, to, { when: new Date(Date.UTC(2030, 0, 1)) });
      },
    },
    strict: {
      payload: z.object({ when: z.date() }),
      handle: (ctx, { when }) => {
        ctx.state.seen.push(`strict ${when.toISOString()}`);
      },
    },
    coerced: {
      payload: z.object({ when: z.coerce.date() }),
      handle: (ctx, { when }) => {
        ctx.state.seen.push(`coerced ${when.toISOString()}`);
      },
    },
    askWithDate: {
      payload: z.object({}),
      handle: (ctx) => {
        ctx.ask(
          Echo.ref('e'),
          'ping',
          {},
          { onReply: 'answered', context: { since: new Date(Date.UTC(2030, 0, 1)) } },
        );
      },
    },
    answered: {
      payload: z.custom<AskReply<string, { since: unknown }>>(),
      handle: (ctx, reply) => {
        ctx.state.seen.push(`context ${typeof reply.context.since} ${String(reply.context.since)}`);
      },
    },
  },
});

const planner = Planner.ref('p');
const seen = async (h: ReturnType<typeof setup>) =>
  ((await h.state(planner.id)) as { seen: string[] } | undefined)?.seen ?? [];

describe('stored timer payloads and ask contexts', () => {
  it('refuse at schedule time a timer payload that fails its schema once stored as JSON', async () => {
    const h = setup({ actors: [Planner, Echo] });
    const error = (await answered(h, h.client.ask(planner, 'plan', { to: 'strict' })).catch(
      (e) => e,
    )) as BatonError;
    expect(error.code).toBe(ErrorCode.DEAD_LETTERED);
    expect(error.details.cause).toMatchObject({ code: ErrorCode.INVALID_PAYLOAD });
    expect(error.message).toMatch(/timer "strict".*JSON/);
    expect(await h.backend.store.listTimers(planner.id)).toEqual([]);
  });

  it('fire a timer with its payload as stored, the same in this process as after a restart', async () => {
    const h = setup({ actors: [Planner, Echo] });
    await answered(h, h.client.ask(planner, 'plan', { to: 'coerced' }));
    expect(await h.backend.store.listTimers(planner.id)).toMatchObject([
      { payload: { when: '2030-01-01T00:00:00.000Z' } },
    ]);
    h.clock.advance(1_000);
    await fireDueTimers(h.engine, h.clock.now());
    await h.run();
    expect(await seen(h)).toEqual(['coerced 2030-01-01T00:00:00.000Z']);
  });

  it("hand an ask's continuation its context as stored JSON, in this process too", async () => {
    const h = setup({ actors: [Planner, Echo] });
    await answered(h, h.client.ask(planner, 'askWithDate', {}));
    await h.run();
    expect(await seen(h)).toEqual(['context string 2030-01-01T00:00:00.000Z']);
  });
});
