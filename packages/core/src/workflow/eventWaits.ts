/**
 * A run's waits for events, and the timeouts of waits and callbacks: an event that came before
 * its wait is handed over once the run is quiescent; a timeout arms the command's timer.
 */
import { type Outcome, recordEntries, type WorkflowState } from './journal.ts';
import type { ReplayHost, Slot } from './replayTypes.ts';

/** The replayer, as a hand-over sees it. */
export interface EventWaiter {
  readonly definition: { readonly name: string };
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

/** What the worker logs (at warn) for a wait issued while another for its event is under way. */
export const WAIT_BEHIND_LOG =
  'a wait for this event is under way already, and takes it first: most often a Promise.race loser (Promise.race cancels nothing); race with ctx.race, and wait for several events of one name one after another';

/**
 * Logs {@link WAIT_BEHIND_LOG} when the new wait `slot` for event `name` has an earlier one of
 * the run's still pending: events go to waits in issue order, so that one takes the next.
 */
export function warnIfBehind(replayer: EventWaiter, slot: Slot, name: string): void {
  const earlier = recordEntries(replayer.state).find(
    (e) => e.kind === 'event' && e.name === name && e.state === 'pending' && e.seq < slot.seq,
  );
  if (!earlier) return;
  replayer.host?.log.warn(WAIT_BEHIND_LOG, {
    workflow: replayer.definition.name,
    event: name,
    seq: slot.seq,
    earlier: earlier.seq,
  });
}
