/**
 * A start of a workflow instance that runs, or ran, with another input is refused at the door,
 * before anything is enqueued, as its turn would refuse it (REJECTED, saying to start another
 * id): the caller learns it from the start itself rather than from an outcome it may never read.
 * A start that races another of the same id (neither applied yet) passes here, and its turn
 * refuses it: its outcome says so. A keyed retry of the start that began the run passes too,
 * whatever its input now parses to (a `.default()` drawn at random): its outcome answers it (a
 * keyed one's before this check, once the id has run again too: see the Client's `send`).
 */
import type { Envelope } from '../adapter/envelope.ts';
import type { Store } from '../adapter/ports.ts';
import type { Caller } from '../caller.ts';
import type { Registry } from '../registry.ts';
import { parseActorId } from '../shared/actorId.ts';
import { digest128 } from '../shared/sha256.ts';
import { startedOtherwise } from '../workflow/instanceStart.ts';
import type { WorkflowState } from '../workflow/journal.ts';
import { mayReadWorkflow } from '../workflow/readAccess.ts';
import { workflowOf } from '../workflow/workflow.ts';

/** Whether `message` may be a workflow's start: those alone are checked, and pay the read. */
export const isStart = (message: Pick<Envelope, 'name'>): boolean => message.name === 'start';

/** Throws the refusal of `message`, a workflow's `start` from `caller`, if its id is taken. */
export async function checkStart(
  store: Store,
  registry: Registry,
  caller: Caller,
  message: Pick<Envelope, 'id' | 'to' | 'name' | 'payload'>,
): Promise<void> {
  const { id, to, name, payload } = message;
  const named = isStart(message) ? parseActorId(to) : undefined;
  const definition =
    named && registry.has(named.type) ? workflowOf(registry.definition(named.type)) : undefined;
  if (!named || !definition) return;
  const state = (await store.load(to))?.state as WorkflowState | undefined;
  if (!state || state.status === 'new') return;
  // This very message began the run (its id gives the run's, see `begin`): a retry.
  if (state.runId === digest128(id).slice(0, 16)) return;
  // The input as the start's turn will see it: parsed by the workflow's schema.
  const { input } = registry.resolve(to, name, payload).payload as { input: unknown };
  const readable = mayReadWorkflow(definition, caller, named.key);
  const refused = startedOtherwise(named.key, state, input, readable);
  if (refused) throw refused;
}
