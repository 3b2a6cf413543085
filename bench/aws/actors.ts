/**
 * The actors the AWS benchmarks run, and what their baselines need to speak the same messages:
 * ingress envelopes as `Client.send` enqueues them.
 */
import { actor } from '@baton/core';
import { type Envelope, encodeEnvelope, INGRESS } from '@baton/core/adapter';
import * as z from 'zod';

export const Ledger = actor({
  name: 'ledger',
  state: z.object({ entries: z.number().int() }),
  initial: () => ({ entries: 0 }),
  handlers: {
    record: {
      public: true,
      payload: z.object({ from: z.string(), amount: z.number().int() }),
      handle: (ctx) => {
        ctx.state.entries++;
      },
    },
  },
});

/** A deposit changes the balance and records it in the ledger: record + outbox + idempotency. */
export const Account = actor({
  name: 'account',
  state: z.object({ balance: z.number().int(), deposits: z.number().int() }),
  initial: () => ({ balance: 0, deposits: 0 }),
  handlers: {
    deposit: {
      public: true,
      payload: z.object({ amount: z.number().int().positive() }),
      handle: (ctx, { amount }) => {
        ctx.state.balance += amount;
        ctx.state.deposits++;
        ctx.send(Ledger.ref('main'), 'record', { from: ctx.self.key, amount });
        return ctx.state.balance;
      },
    },
  },
});

/** A deposit with no send: what live queries watch. */
export const Wallet = actor({
  name: 'wallet',
  state: z.object({ balance: z.number().int() }),
  initial: () => ({ balance: 0 }),
  handlers: {
    deposit: {
      public: true,
      payload: z.object({ amount: z.number().int().positive() }),
      handle: (ctx, { amount }) => {
        ctx.state.balance += amount;
      },
    },
  },
});

/** Applied messages by actor id, counted as handlers run (rounds wait on them). */
export const applied = new Map<string, number>();
/** When each ping-pong hop was handled (`performance.now()`), for hop latencies. */
export const hits: number[] = [];

export const Counter = actor({
  name: 'counter',
  state: z.object({ count: z.number().int(), total: z.number().int() }),
  initial: () => ({ count: 0, total: 0 }),
  handlers: {
    add: {
      public: true,
      payload: z.object({ amount: z.number().int() }),
      handle: (ctx, { amount }) => {
        ctx.state.count++;
        ctx.state.total += amount;
        applied.set(ctx.self.id, (applied.get(ctx.self.id) ?? 0) + 1);
        return ctx.state.count;
      },
    },
  },
});

export const Player = actor({
  name: 'player',
  state: z.object({ hits: z.number().int() }),
  initial: () => ({ hits: 0 }),
  handlers: {
    ball: {
      public: true,
      payload: z.object({ n: z.number().int(), last: z.number().int(), pair: z.string() }),
      handle: (ctx, { n, last, pair }) => {
        ctx.state.hits++;
        hits.push(performance.now());
        const next = ctx.self.key === `a-${pair}` ? `b-${pair}` : `a-${pair}`;
        if (n < last) ctx.send(Player.ref(next), 'ball', { n: n + 1, last, pair });
      },
    },
  },
});

/** An ingress envelope, as `Client.send` encodes it into the inbox. */
export function ingress(id: string, to: string, name: string, payload: unknown): Envelope {
  return { id, from: INGRESS, seq: 0, to, name, payload, sentAt: Date.now() };
}

/** The queue message of an envelope: its group is the target actor. */
export function inboxMessage(envelope: Envelope) {
  return { group: envelope.to, dedupeId: envelope.id, body: encodeEnvelope(envelope) };
}
