/**
 * Actors that halt and start new lives, beside the bank: a `session` records each visit in the
 * `guestbook` (an ask), asks for a `Visited` effect, and may `leave` (`ctx.halt()`). Once the
 * halted record expires and is deleted (a retention jump), the next visit starts a new life that
 * numbers its versions and sends from the start again. The guestbook keeps, per visit, the
 * message id it was signed with and the answer the session's continuation got, so that a run can
 * check that no id of one life named a message, an effect or an ask of another.
 */
import { type AskReply, actor, effect } from '@baton/core';
import * as z from 'zod';

/** Per visit id, the idempotency keys its `Visited` effect ran with (at least once each). */
export const visitedKeys = new Map<string, string[]>();

export const Visited = effect({
  name: 'visited',
  payload: z.object({ visit: z.string() }),
  run: async ({ visit }, { idempotencyKey }) => {
    visitedKeys.set(visit, [...(visitedKeys.get(visit) ?? []), idempotencyKey]);
  },
});

export const Guestbook = actor({
  name: 'guestbook',
  state: z.object({
    /** `visit@message id` for each signature. */
    signed: z.array(z.string()),
    /** `visit=answer` for each answer a session's continuation got. */
    answered: z.array(z.string()),
  }),
  initial: () => ({ signed: [] as string[], answered: [] as string[] }),
  handlers: {
    sign: {
      payload: z.object({ visit: z.string() }),
      handle: (ctx, { visit }) => {
        ctx.state.signed.push(`${visit}@${ctx.message.id}`);
        return visit;
      },
    },
    answered: {
      payload: z.object({ visit: z.string(), answer: z.string() }),
      handle: (ctx, { visit, answer }) => {
        ctx.state.answered.push(`${visit}=${answer}`);
      },
    },
  },
});

type Signed = AskReply<string, { visit: string }>;

export const Session = actor({
  name: 'session',
  state: z.object({ visits: z.number() }),
  initial: () => ({ visits: 0 }),
  handlers: {
    visit: {
      payload: z.object({ id: z.string() }),
      handle: (ctx, { id }) => {
        ctx.state.visits++;
        ctx.effect(Visited, { visit: id });
        ctx.ask(
          Guestbook.ref('main'),
          'sign',
          { visit: id },
          { onReply: 'signed', context: { visit: id } },
        );
      },
    },
    signed: {
      payload: z.custom<Signed>(),
      handle: (ctx, reply) => {
        const answer = reply.ok ? reply.value : reply.error.code;
        const visit = reply.context?.visit ?? '?';
        ctx.send(Guestbook.ref('main'), 'answered', { visit, answer });
      },
    },
    leave: {
      payload: z.object({}),
      handle: (ctx) => ctx.halt(),
    },
  },
});
