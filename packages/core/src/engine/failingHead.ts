/**
 * The message failing at the head of an actor's inbox ({@link ActorRecord.failing}) as an
 * operator meets it: not yet a dead letter, so the actions on dead letters refuse it, saying
 * how to end it instead ({@link endFailingMessage}).
 */
import { jsonSize } from '../adapter/conflicts.ts';
import type { Store } from '../adapter/ports.ts';
import type { ActorRecord, FailingMessage } from '../adapter/storedRecords.ts';
import { BatonError, ErrorCode } from '../errors.ts';
import { batonCommand, type FollowUp } from './followUp.ts';
import { changeRecord, type OperatorOptions } from './operatorCommit.ts';
import { commitGrowth } from './recordRoom.ts';

/** `failing` in words: how often its handler failed, since when, and its last error. */
export function failingSummary(failing: FailingMessage): string {
  const handler = failing.handler === undefined ? 'its handler' : `handler "${failing.handler}"`;
  const since =
    failing.since === undefined ? '' : ` since ${new Date(failing.since).toISOString()}`;
  const last = failing.error ? `; last error ${failing.error.code}: ${failing.error.message}` : '';
  return `${handler} failed ${failing.attempts} time(s)${since}${last}`;
}

/**
 * The refusal of a dead-letter action (show, redrive, purge) on the message failing at the head
 * of `record`'s inbox, when `messageId` names it; else `undefined`.
 */
export function failingNotDeadLettered(
  record: ActorRecord | undefined,
  messageId: string,
  followUp: FollowUp,
): BatonError | undefined {
  const failing = record?.failing;
  if (!record || failing?.id !== messageId) return undefined;
  const actorId = record.id;
  const end = failing.ended
    ? `an operator ended it already (${failing.ended.by}, at ${new Date(failing.ended.at).toISOString()}): its next delivery keeps it as a dead letter without running its handler`
    : `to end it now, without running its handler again: ${followUp`actors end-failing ${actorId} ${messageId}`}; to let it succeed, fix its cause and deploy`;
  return new BatonError(
    ErrorCode.INVALID_STATE,
    `message ${messageId} is no dead letter yet: it is failing at the head of ${actorId}'s inbox (${failingSummary(failing)}), and the messages behind it wait. The worker retries it until its attempts run out, then keeps it as a dead letter to redrive or purge; ${end}`,
    { details: { actorId, messageId, failing: true, attempts: failing.attempts } },
  );
}

/**
 * Ends the message failing at the head of an actor's inbox (`baton actors end-failing`), for
 * one whose attempts would take hours to run out — a `RetryableError` with a long
 * `retryAfterMs`, a message only newer code knows — or whose handler must not run again: its
 * next delivery keeps it as a dead letter of its last error, without running its handler, and
 * the actor goes on with the messages behind it. The letter is then redriven or purged as any
 * other. The end takes effect at that delivery, once the retry delay its last failure asked for
 * is over; the commit marks the record's count of the message ({@link FailingMessage.ended}).
 *
 * Refused with NOT_FOUND when no message failing at the head has the id `messageId` (the inbox
 * moved on, or another message is failing), naming the one failing; and with INVALID_STATE on
 * a paused actor, which parks the message at its next delivery instead (resume it; the
 * message then fails again, and can be ended), or whose record is too near the item limit to
 * hold the mark (`details.noRoom`). Ending a message ended already changes nothing.
 * Returns the message's count, marked ended.
 *
 * @example
 * await endFailingMessage(store, 'account/alice', 'ingress:["account/alice","dep-1"]', { by: 'ops' });
 */
export async function endFailingMessage(
  store: Store,
  actorId: string,
  messageId: string,
  { by, now = Date.now(), followUp = batonCommand }: OperatorOptions,
): Promise<FailingMessage> {
  const record = await changeRecord(store, actorId, now, (current) => {
    const { failing } = current;
    if (failing?.id !== messageId) throw notFailing(current, messageId, followUp);
    if (current.paused) {
      throw new BatonError(
        ErrorCode.INVALID_STATE,
        `${actorId} is paused: message ${messageId}, failing at the head of its inbox, is parked at its next delivery and applied on resume, so ending it now would be lost. Resume it (${followUp`actors resume ${actorId}`}); if the message fails again, end it then`,
        { details: { actorId, messageId } },
      );
    }
    if (failing.ended) return undefined;
    const ended = { at: now, by };
    // Kept with its last error, which its letter keeps; without it if the record has no room.
    const { handler: _, error: __, ...count } = failing;
    const marked = [failing, count]
      .map((kept): ActorRecord => ({ ...current, failing: { ...kept, ended } }))
      .find((next) => jsonSize(next) + commitGrowth(next) <= store.limits.maxItemBytes);
    if (!marked) throw noRoomToEnd(current, messageId, followUp);
    return { record: marked };
  });
  return record.failing!;
}

/** The refusal to end a message whose record has no room left for the mark. */
function noRoomToEnd(record: ActorRecord, messageId: string, followUp: FollowUp): BatonError {
  return new BatonError(
    ErrorCode.INVALID_STATE,
    `${record.id}'s record is too near the backend's item limit to mark message ${messageId} ended: it is dead-lettered when its attempts run out (a worker's maxAttempts), as before; ${followUp`actors get ${record.id}`} shows them`,
    { details: { actorId: record.id, messageId, noRoom: true } },
  );
}

/** The refusal to end `messageId`, which is not the message failing at `record`'s head. */
function notFailing(record: ActorRecord, messageId: string, followUp: FollowUp): BatonError {
  const { failing } = record;
  const instead = failing
    ? `the message failing there is ${failing.id} (${failingSummary(failing)})`
    : record.paused
      ? `none is failing there: ${record.id} is paused, so a message that was failing is parked (its handler runs again once resumed, and can be ended then if it fails), or was applied or dead-lettered before`
      : `none is failing there: it was applied or dead-lettered, or never failed, or a worker dies or times out on it, which records no failure (its log says: Task timed out; ${followUp`actors pause ${record.id}`} holds the actor's messages, that one too, until resumed)`;
  return new BatonError(
    ErrorCode.NOT_FOUND,
    `message ${messageId} is not failing at the head of ${record.id}'s inbox: ${instead}; ${followUp`actors get ${record.id}`} shows it, and ${followUp`dead-letters list`} the letters kept`,
    { details: { actorId: record.id, messageId, failing: failing?.id ?? null } },
  );
}
