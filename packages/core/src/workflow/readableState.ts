import type { AnyActorDefinition } from '../actor.ts';
import type { JournalEntry, WorkflowState } from './journal.ts';
import { workflowOf } from './workflow.ts';

/**
 * An actor's state as a query reads it (`ctx.get`): as stored, but for a workflow instance's,
 * whose callbacks' secrets are left out. A callback's token carries its secret, so a query that
 * showed the journal — a public one, say — would let any reader complete the callback.
 */
export function readableState(definition: AnyActorDefinition, state: unknown): unknown {
  if (!workflowOf(definition)) return state;
  // A workflow's state is always its WorkflowState (initial() too).
  const stored = state as WorkflowState;
  return {
    ...stored,
    journal: stored.journal.map(withoutSecret),
    ...(stored.pinned ? { pinned: stored.pinned.map(withoutSecret) } : {}),
  };
}

function withoutSecret(entry: JournalEntry): JournalEntry {
  if (entry.secret === undefined) return entry;
  const { secret: _, ...rest } = entry;
  return rest;
}
