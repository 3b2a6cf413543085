/**
 * Cancelling a run's pending commands: a race's losers, and what a run that failed left under
 * way. A cancelled command never resolves, its timer never fires, a child is told why; a call
 * with a compensation is undone instead.
 */
import type { ActorRef } from '../actor.ts';
import { parseActorId } from '../shared/actorId.ts';
import { endOfChild, type JournalEntry, type WorkflowState } from './journal.ts';
import type { ReplaySlots } from './ReplaySlots.ts';
import type { ReplayHost } from './replayTypes.ts';

/** The replayer, as a cancel sees it. */
export interface Canceller {
  readonly host: ReplayHost | undefined;
  readonly state: WorkflowState;
}

/**
 * Cancels the pending commands of `seqs` (a race's losers, or what a failed run left): they
 * never resolve, their timers never fire, and a child still running is cancelled, told why. A
 * call with a compensation is undone instead: the actor may apply it still, so it stays pending,
 * and its compensation runs once its reply came (see `SagaRunner.undo`). `entryOf(seq)` is
 * entry number `seq` of the history.
 */
export function cancelCommands(
  replayer: Canceller,
  slots: ReplaySlots,
  entryOf: (seq: number) => JournalEntry | undefined,
  seqs: readonly number[],
  because: 'lost a race' | 'failed',
): void {
  for (const seq of seqs) {
    const slot = slots.get(seq);
    // In memory, not journaled: a replay settles the race at the same place and marks it again.
    if (slot?.compensable) {
      slot.undo = true;
      continue;
    }
    const { host } = replayer;
    const entry = entryOf(seq);
    if (entry?.state !== 'pending' || !host) continue;
    entry.state = 'cancelled';
    if (entry.until !== undefined || entry.retryAt !== undefined) host.cancelTimer(entry.seq);
    const child = entry.kind === 'child' && entry.child ? parseActorId(entry.child) : undefined;
    if (child) {
      const { key } = host.self;
      const reason =
        because === 'failed' ? `its parent ${key} failed` : `it lost a race in its parent ${key}`;
      const end = endOfChild(replayer.state, entry.seq, reason);
      host.send({ ...child, id: entry.child } as ActorRef, 'cancel', end);
    }
  }
}

/**
 * What the failed run left under way, to end as a cancel does: a sibling step does not run after
 * the failure (nor keep a compensation the runner would miss), a wait takes no event, a child
 * is cancelled. Calls stay pending: the actor may apply one still, and a compensable call's
 * reply is awaited before the runner starts. So do a race loser's undo's commands: the runner
 * waits for the undo. The cancellations are journaled with the turn.
 */
export function leftByFailedRun(slots: ReplaySlots): number[] {
  const under = [...slots.values()].filter(
    (slot) => slot.entry.kind !== 'call' && !slot.entry.saga,
  );
  return under.map((slot) => slot.seq);
}
