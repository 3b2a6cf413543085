/**
 * What the door refuses of a workflow instance, as its turn would refuse it, so the caller
 * learns it from the call itself rather than from an outcome it may never read (a `send`
 * resolves once the message is accepted):
 *
 * - a start of an id that runs, or ran, with another input (REJECTED, saying to start another
 *   id). A start that races another of the same id (neither applied yet) passes here, and its
 *   turn refuses it: its outcome says so. A keyed retry of the start that began the run passes
 *   too, whatever its input now parses to (a `.default()` drawn at random): its outcome answers
 *   it (a keyed one's before this check, once the id has run again too: see the Client's `send`);
 * - a signal to an instance that ended (REJECTED, naming the event): an ended instance takes no
 *   event. One that races the end passes, and its turn refuses it. A keyed retry of a signal
 *   taken before the end is answered by its outcome before this check; one whose own turn ended
 *   the run between that read and this one is told apart, and a keyed one refused here is
 *   enqueued all the same, so its key keeps the refusal (see {@link doorCheck}).
 */
import type { Envelope } from '../adapter/envelope.ts';
import type { Store } from '../adapter/ports.ts';
import type { IdempotencyRecord } from '../adapter/storedRecords.ts';
import type { Caller } from '../caller.ts';
import { BatonError, ErrorCode } from '../errors.ts';
import type { Registry } from '../registry.ts';
import { parseActorId } from '../shared/actorId.ts';
import { digest128 } from '../shared/sha256.ts';
import { startedOtherwise } from '../workflow/instanceStart.ts';
import { FINAL_STATUSES, type WorkflowState } from '../workflow/journal.ts';
import { endedBeforeEvent } from '../workflow/lateEvent.ts';
import { mayReadWorkflow } from '../workflow/readAccess.ts';
import { workflowOf } from '../workflow/workflow.ts';
import { BOUNDED_READ } from './IdempotencyKeys.ts';

type Message = Pick<Envelope, 'id' | 'to' | 'name' | 'payload'>;

/** Whether the door may refuse `message`: those alone (a start or a signal) pay the read. */
export const checkedAtDoor = (message: Pick<Envelope, 'name'>): boolean =>
  message.name === 'start' || message.name === 'signal';

/** Throws the refusal of `message` from `caller` if it is a workflow's start or signal its instance would refuse. */
export async function checkAtDoor(
  store: Store,
  registry: Registry,
  caller: Caller,
  message: Message,
): Promise<void> {
  const { id, to, name, payload } = message;
  const named = checkedAtDoor(message) ? parseActorId(to) : undefined;
  const definition =
    named && registry.has(named.type) ? workflowOf(registry.definition(named.type)) : undefined;
  if (!named || !definition) return;
  const state = (await store.load(to))?.state as WorkflowState | undefined;
  if (!state || state.status === 'new') return;
  const readable = () => mayReadWorkflow(definition, caller, named.key);
  if (name === 'signal') {
    if (!FINAL_STATUSES.has(state.status)) return;
    const event = (payload as { name: string }).name;
    throw endedBeforeEvent(named.key, state.status, event, readable());
  }
  // This very message began the run (its id gives the run's, see `begin`): a retry.
  if ((state.firstRun ?? state).runId === digest128(id).slice(0, 16)) return;
  // The input as the start's turn will see it: parsed by the workflow's schema.
  const { input } = registry.resolve(to, name, payload).payload as { input: unknown };
  const refused = startedOtherwise(definition, named.key, state, input, readable());
  if (refused) throw refused;
}

/**
 * The door's check of a client's `message`, after its key (if `keyed`) is bound and before it
 * is enqueued: throws the refusal {@link checkAtDoor} finds. A keyed retry of a message already
 * processed was answered by its outcome before it, and one refused here is refused again.
 *
 * A keyed signal refused as late may be the one that ended the run, its turn committed since
 * the key was bound: its outcome, committed with that end, is read again and returned. Else it
 * is refused, and `enqueue`d all the same: its turn refuses it too and keeps the refusal as the
 * key's outcome, so a retry under the key is answered so for the outcomes' retention, even once
 * a new run of the id starts, which would otherwise take the stale event. The refusal names
 * that message (`details.messageId`). Only a refusal: a read that failed enqueues nothing.
 */
export async function doorCheck(
  store: Store,
  registry: Registry,
  caller: Caller,
  message: Envelope,
  keyed: boolean,
  enqueue: () => Promise<void>,
): Promise<IdempotencyRecord | undefined> {
  try {
    await checkAtDoor(store, registry, caller, message);
    return undefined;
  } catch (error) {
    const refused = error instanceof BatonError && error.code === ErrorCode.REJECTED;
    if (!refused || !keyed || message.name !== 'signal') throw error;
    const known = await store.readIdempotency(message.id, message.sentAt, BOUNDED_READ);
    if (known !== undefined) return known;
    await enqueue();
    const { code, message: text, details } = error;
    throw new BatonError(code, text, { details: { ...details, messageId: message.id } });
  }
}
