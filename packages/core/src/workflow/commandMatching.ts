/**
 * How the commands a run issues are matched against its history: the divergence each mismatch
 * is, and a journaled command issued again.
 */
import type { HistoryCursor } from './HistoryCursor.ts';
import type { CommandKind, JournalEntry } from './journal.ts';
import { type ReplaySlots, settle } from './ReplaySlots.ts';
import type { Slot } from './replayTypes.ts';

/**
 * Why journaled command `existing` (number `seq`) is not the `kind` "`name`" (to `to`) the code
 * now issues there: the divergence, or `undefined` when it is that command.
 */
export function mismatch(
  existing: JournalEntry,
  seq: number,
  kind: CommandKind,
  name: string,
  to: string | undefined,
): string | undefined {
  if (existing.kind !== kind || existing.name !== name) {
    return `command ${seq} of the history is ${existing.kind} "${existing.name}", but the code now issues ${kind} "${name}" there`;
  }
  // The actor it went to (an entry journaled before entries named it is taken as it is).
  const went = existing.kind === 'child' ? existing.child : existing.to;
  if (to !== undefined && went !== undefined && went !== to) {
    return `command ${seq} of the history is ${kind} "${name}" to ${went}, but the code now issues it to ${to} there (was the target drawn from Math.random, Date.now or outside state? use ctx.random, ctx.now or a step)`;
  }
  return undefined;
}

/**
 * The slot of journaled command `entry`, issued again: a result that came as the command was
 * issued resolves as it did then.
 */
export function reissue(slots: ReplaySlots, history: HistoryCursor, entry: JournalEntry): Slot {
  const slot = slots.open(entry, false);
  if (entry.inline && entry.order === history.next?.order) {
    history.took();
    settle(slot);
  }
  return slot;
}

/**
 * The divergence of a command `kind` "`name`" (number `seq`) that the code issues where the
 * history has none before `expected` completes.
 */
export function unexpectedCommand(
  seq: number,
  kind: CommandKind,
  name: string,
  expected: JournalEntry,
): string {
  return `the code issues ${kind} "${name}" (command ${seq}) where the history has none before ${expected.kind} "${expected.name}" (command ${expected.seq}) completes`;
}

/** The divergence of the history's command `entry` that the code never reaches (`what` says which). */
export function neverReached(entry: JournalEntry, what = ''): string {
  return `the history's ${what}${entry.kind} "${entry.name}" (command ${entry.seq}) is never reached: the code removed or moved it`;
}
