/**
 * The bounds on what a workflow instance's record keeps, and the errors that refuse more: the
 * largest value one journal entry holds (a step's result, a reply, an event's payload, the run's
 * output), and the bytes of events held for waits to come.
 */
import { BatonError, ErrorCode } from '../errors.ts';
import { jsonSize } from '../shared/jsonSize.ts';
import type { WorkflowState } from './journal.ts';

/**
 * The largest value one journal entry keeps (a step's result, a reply, an event's payload):
 * the journal lives in the instance's record (400 KB on DynamoDB), so one value may not take
 * most of it.
 */
export const MAX_JOURNAL_VALUE_BYTES = 64 * 1024;

/**
 * MESSAGE_TOO_LARGE when `value` passes {@link MAX_JOURNAL_VALUE_BYTES}, else `undefined`.
 *
 * @example
 * const tooLarge = journalValueTooLarge('the result of step "export"', result);
 */
export function journalValueTooLarge(what: string, value: unknown): BatonError | undefined {
  const size = jsonSize(value);
  if (size <= MAX_JOURNAL_VALUE_BYTES) return undefined;
  return new BatonError(
    ErrorCode.MESSAGE_TOO_LARGE,
    `${what} is ${size} bytes, more than the ${MAX_JOURNAL_VALUE_BYTES} a workflow journals per value: store large data elsewhere and pass a reference`,
    { details: { size, limit: MAX_JOURNAL_VALUE_BYTES } },
  );
}

/**
 * MESSAGE_TOO_LARGE for the reply to call `name` when it is too large to journal, else
 * `undefined`. The actor applied the call, so the failure says so (`details.applied`): the call's
 * compensation is kept, with no reply (`callMayBeApplied`).
 */
export function replyTooLarge(name: string, reply: unknown): BatonError | undefined {
  const size = jsonSize(reply);
  if (size <= MAX_JOURNAL_VALUE_BYTES) return undefined;
  return new BatonError(
    ErrorCode.MESSAGE_TOO_LARGE,
    `the reply to call "${name}" is ${size} bytes, more than the ${MAX_JOURNAL_VALUE_BYTES} a workflow journals per value, so the call fails, though the actor applied it (its compensation, if it has one, is kept): have the handler reply with less, a reference to large data kept elsewhere`,
    { details: { size, limit: MAX_JOURNAL_VALUE_BYTES, applied: true } },
  );
}

/**
 * MESSAGE_TOO_LARGE for the output of workflow instance `instance` when it is too large to
 * journal (in its record, and in a parent's journal as its child command's result), else
 * `undefined`.
 */
export function outputTooLarge(instance: string, output: unknown): BatonError | undefined {
  const size = jsonSize(output);
  if (size <= MAX_JOURNAL_VALUE_BYTES) return undefined;
  return new BatonError(
    ErrorCode.MESSAGE_TOO_LARGE,
    `the output of workflow ${instance} is ${size} bytes, more than the ${MAX_JOURNAL_VALUE_BYTES} a workflow journals per value, so the run fails: return a reference to large data stored elsewhere (a step's result is capped alike)`,
    { details: { size, limit: MAX_JOURNAL_VALUE_BYTES } },
  );
}

/**
 * Most bytes of events an instance keeps for waits to come (`state.signals`): its record must stay
 * far under the store's item limit, and each turn writes it whole.
 */
export const MAX_HELD_EVENT_BYTES = 128 * 1024;

/**
 * LIMIT_EXCEEDED when keeping event `name` with `payload` beside those `signals` hold would pass
 * {@link MAX_HELD_EVENT_BYTES}, else `undefined`.
 */
export function heldEventsFull(
  signals: WorkflowState['signals'],
  name: string,
  payload: unknown,
): BatonError | undefined {
  const held = jsonSize(signals);
  const size = held + jsonSize({ name, payload, at: 0 });
  if (size <= MAX_HELD_EVENT_BYTES) return undefined;
  return new BatonError(
    ErrorCode.LIMIT_EXCEEDED,
    `event "${name}" was refused: the instance already holds ${signals.length} events (${held} bytes) that no wait has taken, and keeps at most ${MAX_HELD_EVENT_BYTES} bytes of them. Check that the workflow waits for the events sent to it (their names, or declare them with \`events\` to refuse unknown names), or send fewer ahead of their waits`,
    { details: { event: name, held: signals.length, bytes: held, limit: MAX_HELD_EVENT_BYTES } },
  );
}
