/**
 * The bank the simulation runs: transfers withdraw from one account and deposit into another,
 * a deposit past the receiver's limit is refused and refunded. Every account logs each effect
 * it applies and checks that messages on each channel arrive numbered 1, 2, 3 … — so after a
 * run the test can count every effect (I1) and see every FIFO break (I3).
 */
import { type ActorContext, actor, RetryableError, TerminalError } from '@baton/core';
import { z } from 'zod';

export const INITIAL_BALANCE = 100;
export const DEPOSIT_LIMIT = 160;

const State = z.object({
  balance: z.number(),
  /** `transferId:effect` for every effect applied here. */
  log: z.array(z.string()),
  /** Messages sent per target (channel counters). */
  sent: z.record(z.string(), z.number()),
  /** The last channel number received per sender. */
  received: z.record(z.string(), z.number()),
  fifoBreaks: z.array(z.string()),
});
type State = z.infer<typeof State>;

const Movement = z.object({
  id: z.string(),
  from: z.string(),
  amount: z.number().int().positive(),
  n: z.number().int(),
});

/** Checks that the message is the next on its channel, then moves the channel on. */
function checkChannel(ctx: ActorContext<State>, from: string, n: number): void {
  const expected = (ctx.state.received[from] ?? 0) + 1;
  if (n !== expected)
    ctx.state.fifoBreaks.push(`${from}→${ctx.self.key}: got ${n}, expected ${expected}`);
  ctx.state.received[from] = n;
}

function nextOnChannel(ctx: ActorContext<State>, to: string): number {
  const n = (ctx.state.sent[to] ?? 0) + 1;
  ctx.state.sent[to] = n;
  return n;
}

export const Account = actor({
  name: 'account',
  state: State,
  initial: (): State => ({
    balance: INITIAL_BALANCE,
    log: [],
    sent: {},
    received: {},
    fifoBreaks: [],
  }),
  handlers: {
    transfer: {
      payload: z.object({ id: z.string(), to: z.string(), amount: z.number().int().positive() }),
      handle: (ctx, { id, to, amount }) => {
        // Change the draft before deciding, so a rejection must discard it (I6).
        ctx.state.balance -= amount;
        if (ctx.state.balance < 0) throw new TerminalError(`insufficient funds for ${id}`);
        ctx.state.log.push(`${id}:withdraw`);
        const n = nextOnChannel(ctx, to);
        ctx.send(Account.ref(to), 'deposit', { id, from: ctx.self.key, amount, n });
        return { balance: ctx.state.balance };
      },
    },
    deposit: {
      payload: Movement,
      handle: (ctx, { id, from, amount, n }) => {
        if (ctx.random() < 0.05)
          throw new RetryableError('a transient failure, to exercise retries');
        checkChannel(ctx, from, n);
        if (ctx.state.balance + amount > DEPOSIT_LIMIT) {
          ctx.state.log.push(`${id}:refuse`);
          const back = nextOnChannel(ctx, from);
          ctx.send(Account.ref(from), 'refund', { id, from: ctx.self.key, amount, n: back });
          return;
        }
        ctx.state.balance += amount;
        ctx.state.log.push(`${id}:deposit`);
      },
    },
    refund: {
      payload: Movement,
      handle: (ctx, { id, from, amount, n }) => {
        checkChannel(ctx, from, n);
        ctx.state.balance += amount;
        ctx.state.log.push(`${id}:refund`);
      },
    },
  },
});
