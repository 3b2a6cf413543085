/**
 * The compensations of `ctx.call` and `ctx.send`: kept for the saga runner, which runs them in
 * reverse if the saga unwinds, or run at once to undo a race's losing call. A call that failed
 * yet may have been applied keeps its compensation, with no reply.
 */
import { isBatonError } from '../errors.ts';
import { callMayBeApplied } from './journal.ts';
import type { Slot } from './replayTypes.ts';
import type { SagaRunner } from './SagaRunner.ts';
import type { CallOptions } from './WorkflowContext.ts';

/** A call's or send's compensation, as `CallOptions.compensate` takes it. */
type Compensate<R> = NonNullable<CallOptions<R>['compensate']>;

/**
 * The promise of call `slot`, with its compensation kept or run once the call settles: a
 * race's loser is undone at once, a call the run awaited kept for the saga runner.
 */
export function compensatedCall(
  sagas: SagaRunner,
  slot: Slot,
  compensate: Compensate<unknown>,
): Promise<unknown> {
  return slot.promise.then(
    (reply) => {
      // A race's loser is undone now; a call the run awaited is undone if the saga unwinds.
      if (slot.undo) sagas.undo((saga) => compensate(reply, saga));
      else keepCallCompensation(sagas, slot.entry, compensate, reply);
      return reply;
    },
    (error: unknown) => {
      // No reply, yet the actor may have applied the message (see `mayBeApplied`): a call
      // the run awaited is undone if the saga unwinds; a race's loser is undone now, unless
      // an earlier Baton journaled its failure (and left it alone: see `unreplied`).
      if (!mayBeApplied(error)) throw error;
      if (!slot.undo) keepCallCompensation(sagas, slot.entry, compensate, undefined, true);
      else if (slot.entry.unreplied) {
        sagas.undo((saga) => compensate(undefined, saga));
      }
      throw error;
    },
  );
}

/**
 * Keeps a call's or send's compensation: workflow code the saga runner runs in its context.
 * `attempted`: a call's kept with no reply (see `mayBeApplied`).
 */
export function keepCallCompensation<R>(
  sagas: SagaRunner,
  { seq, name }: { seq: number; name: string },
  compensate: Compensate<R>,
  reply: R | undefined,
  attempted = false,
): void {
  sagas.compensations.push({
    seq,
    name,
    step: false,
    attempted,
    fn: (saga) => compensate(reply, saga),
  });
}

/**
 * Whether a call that failed may have been applied all the same, or may be later (see
 * `callMayBeApplied`). Its compensation is kept, with no reply; it goes to the actor after the
 * call's message, on the same channel, so it is applied after it (a dead letter redriven later
 * is applied after it, though).
 */
function mayBeApplied(error: unknown): boolean {
  return isBatonError(error) && callMayBeApplied(error);
}
