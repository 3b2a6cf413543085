/**
 * The bank the simulation runs: transfers withdraw from one account and deposit into another,
 * a deposit past the receiver's limit is refused and refunded. Every account logs each effect
 * it applies and checks that messages on each channel arrive numbered 1, 2, 3 … — so after a
 * run the test can count every effect (I1) and see every FIFO break (I3).
 *
 * Scheduled transfers go through a durable timer: `schedule` sets one, `cancelScheduled` may
 * cancel it before it fires, and the fire runs `scheduledTransfer`, which bounces instead of
 * rejecting so that every scheduled transfer leaves exactly one of `withdraw`, `bounce` or
 * `cancel` in the log. Every withdrawal asks for a `Receipt` effect, run at least once.
 */
import { type ActorContext, actor, effect, RetryableError, TerminalError } from '@baton/core';
import * as z from 'zod';

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
  /** Scheduled transfers whose timer has neither fired nor been cancelled. */
  scheduled: z.array(z.string()),
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

/** Per transfer id, the idempotency keys its receipt effect ran with (at least once each). */
export const receipts = new Map<string, string[]>();

/**
 * The receipt of a withdrawal, an effect outside Baton: it fails on its first run for every
 * third transfer, to be retried.
 */
export const Receipt = effect({
  name: 'receipt',
  payload: z.object({ id: z.string() }),
  run: async ({ id }, { idempotencyKey, attempt }) => {
    receipts.set(id, [...(receipts.get(id) ?? []), idempotencyKey]);
    if (attempt === 1 && Number(id.slice(1)) % 3 === 0) throw new Error('receipt service down');
  },
});

/** Per statement id, how many times its handler ran (it fails the first `failFirst` runs). */
export const statementRuns = new Map<string, number>();

const Transfer = z.object({ id: z.string(), to: z.string(), amount: z.number().int().positive() });

/** Logs the withdrawal of `amount` (already taken from the balance) and sends it on. */
function withdraw(ctx: ActorContext<State>, { id, to, amount }: z.infer<typeof Transfer>): void {
  ctx.state.log.push(`${id}:withdraw`);
  ctx.effect(Receipt, { id });
  const n = nextOnChannel(ctx, to);
  ctx.send(Account.ref(to), 'deposit', { id, from: ctx.self.key, amount, n });
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
    scheduled: [],
  }),
  handlers: {
    transfer: {
      public: true,
      payload: Transfer,
      handle: (ctx, { id, to, amount }) => {
        // Change the draft before deciding, so a rejection must discard it (I6).
        ctx.state.balance -= amount;
        if (ctx.state.balance < 0) throw new TerminalError(`insufficient funds for ${id}`);
        withdraw(ctx, { id, to, amount });
        return { balance: ctx.state.balance };
      },
    },
    schedule: {
      public: true,
      payload: Transfer.extend({ delay: z.number().int().nonnegative() }),
      handle: (ctx, { delay, ...transfer }) => {
        ctx.schedule(delay, 'scheduledTransfer', transfer, { id: transfer.id });
        ctx.state.scheduled.push(transfer.id);
      },
    },
    cancelScheduled: {
      public: true,
      payload: z.object({ id: z.string() }),
      handle: (ctx, { id }) => {
        if (!ctx.state.scheduled.includes(id)) return false;
        ctx.cancel(id);
        ctx.state.scheduled = ctx.state.scheduled.filter((s) => s !== id);
        ctx.state.log.push(`${id}:cancel`);
        return true;
      },
    },
    scheduledTransfer: {
      public: true,
      payload: Transfer,
      handle: (ctx, { id, to, amount }) => {
        if (ctx.message.from !== 'timer') throw new TerminalError('only a timer runs this');
        ctx.state.scheduled = ctx.state.scheduled.filter((s) => s !== id);
        if (ctx.state.balance < amount) {
          ctx.state.log.push(`${id}:bounce`);
          return;
        }
        ctx.state.balance -= amount;
        withdraw(ctx, { id, to, amount });
      },
    },
    deposit: {
      public: true,
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
    /**
     * A client's ask for a statement, from a ledger service that is down for its first
     * `failFirst` runs (of this statement): with as many attempts as that, the engine keeps it as
     * a dead letter and answers the asker DEAD_LETTERED, so a plain redrive of it is refused and
     * the run's operator forces it; it is logged once applied.
     */
    statement: {
      public: true,
      payload: z.object({ id: z.string(), failFirst: z.number().int().nonnegative() }),
      handle: (ctx, { id, failFirst }) => {
        const runs = (statementRuns.get(id) ?? 0) + 1;
        statementRuns.set(id, runs);
        if (runs <= failFirst) throw new Error('the ledger service is down');
        ctx.state.log.push(`${id}:statement`);
        return { balance: ctx.state.balance };
      },
    },
    refund: {
      public: true,
      payload: Movement,
      handle: (ctx, { id, from, amount, n }) => {
        checkChannel(ctx, from, n);
        ctx.state.balance += amount;
        ctx.state.log.push(`${id}:refund`);
      },
    },
  },
});

/**
 * An actor type only the upgrade has: every deposit the new code applies is audited here, once.
 * Old code meets its messages during a rolling deploy: they wait (retried, then dead-lettered
 * and redriven) until new code runs them.
 */
export const Audit = actor({
  name: 'audit',
  state: z.object({ ids: z.array(z.string()) }),
  initial: () => ({ ids: [] as string[] }),
  handlers: {
    record: {
      payload: z.object({ id: z.string() }),
      handle: (ctx, { id }) => {
        ctx.state.ids.push(id);
      },
    },
  },
});

const StateV2 = State.extend({ migrated: z.number() });
type StateV2 = z.infer<typeof StateV2>;

/**
 * The account after an upgrade (the `deploy` fault): version 2 of the state adds `migrated`, the
 * number of log entries when the record was first loaded by the new code. A deposit it applies
 * also thanks the payer with a message name only the new code knows (`thanks`, logged `<id>:ty`
 * by the payer: short, so records stay within the simulation's small item limits) and audits it
 * with the new actor type ({@link Audit}), in the same commit. The other handlers are the old
 * ones.
 */
export const AccountV2 = actor({
  name: 'account',
  version: 2,
  state: StateV2,
  initial: (): StateV2 => ({ ...Account.initial(''), migrated: 0 }),
  migrate: { 1: (state) => ({ ...(state as State), migrated: (state as State).log.length }) },
  handlers: {
    ...(Account.handlers as unknown as Omit<typeof Account.handlers, 'deposit'>),
    deposit: {
      payload: Movement,
      handle: (ctx: ActorContext<StateV2>, movement: z.infer<typeof Movement>) => {
        Account.handlers.deposit.handle(ctx as never, movement as never);
        const { id, from } = movement;
        if (ctx.state.log.at(-1) !== `${id}:deposit`) return;
        ctx.send(AccountV2.ref(from), 'thanks', { id });
        ctx.send(Audit.ref('bank'), 'record', { id });
      },
    },
    thanks: {
      payload: z.object({ id: z.string() }),
      handle: (ctx: ActorContext<StateV2>, { id }: { id: string }) => {
        ctx.state.log.push(`${id}:ty`);
      },
    },
  },
});
