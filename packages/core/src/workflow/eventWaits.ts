/**
 * A run's waits for events, and the timeouts of waits and callbacks: an event that came before
 * its wait is handed over once the run is quiescent; a timeout arms the command's timer.
 */
import { BatonError, ErrorCode } from '../errors.ts';
import { type Outcome, recordEntries, type WorkflowState } from './journal.ts';
import type { ReplayHost, Slot } from './replayTypes.ts';

/** The replayer, as a hand-over sees it. */
export interface EventWaiter {
  readonly host: ReplayHost | undefined;
  readonly state: WorkflowState;
  /** Journals a result that comes in this turn, and resolves the wait's promise with it. */
  complete(slot: Slot, outcome: Outcome): void;
}

/**
 * Hands an event that came before its wait to the first pending wait for it, the run being
 * quiescent; one at a time, so that a race settled by one cancels its losers before they take
 * events of their own. Its completion is journaled in order, as a step's result, so a replay
 * hands it over at the same point. A wait left with no event arms its timeout.
 */
export function handOver(replayer: EventWaiter, slots: Iterable<Slot>): boolean {
  const { host } = replayer;
  if (!host) return false;
  const { signals } = replayer.state;
  for (const slot of slots) {
    const { entry } = slot;
    if (entry.kind !== 'event' || entry.state !== 'pending') continue;
    const index = signals.findIndex((signal) => signal.name === entry.name);
    if (index >= 0) {
      const [signal] = signals.splice(index, 1);
      if (entry.until !== undefined) host.cancelTimer(entry.seq);
      replayer.complete(slot, { ok: true, value: signal?.payload });
      return true;
    }
    if (slot.timeoutMs !== undefined) {
      armTimeout(host, slot, slot.timeoutMs);
      delete slot.timeoutMs;
    }
  }
  return false;
}

/** Arms the timeout of a wait or a callback, `timeoutMs` from now (none in a check replay). */
export function armTimeout(
  host: ReplayHost | undefined,
  slot: Slot,
  timeoutMs: number | undefined,
): void {
  if (timeoutMs === undefined || !host) return;
  slot.entry.until = host.now() + timeoutMs;
  host.schedule(slot.seq, slot.entry.until, 'timeout');
}

/**
 * INVALID_ARGUMENT for a new wait for event `name` while an earlier one is pending, in a run
 * that takes one at a time (`waits` in the record), else `undefined`: events settle waits in
 * issue order, so the earlier one would take the next such event. That earlier wait is most
 * often one that lost a `Promise.race`, which cancels nothing and so leaves it waiting: the
 * event the run means to take would go to it, unread.
 */
export function waitingAlready(state: WorkflowState, name: string): BatonError | undefined {
  if (state.waits !== 'one') return undefined;
  const earlier = recordEntries(state).find(
    (e) => e.kind === 'event' && e.name === name && e.state === 'pending',
  );
  if (!earlier) return undefined;
  return new BatonError(
    ErrorCode.INVALID_ARGUMENT,
    `ctx.waitForEvent("${name}") while an earlier wait for it (command ${earlier.seq}) is under way, which would take the next "${name}" first: a wait that lost a Promise.race still waits, so race with ctx.race, which cancels its losers; to take several "${name}" events, wait for them one after another`,
    { details: { event: name, seq: earlier.seq } },
  );
}
