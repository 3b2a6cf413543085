/**
 * What an operator does to one actor outside its turns — pause, resume, forget a dead letter,
 * cancel a timer (and end a failing message: `failingHead.ts`) — each as one commit of the
 * actor's record on its version (`operatorCommit.ts`). Used by `baton`.
 */

import { WORKFLOW_TYPE_PREFIX } from '../actor.ts';
import { awaitsRedrive, endedWithoutRedrive } from '../adapter/awaitsRedrive.ts';
import type { Envelope } from '../adapter/envelope.ts';
import { askTimerId, encodeEnvelope, INGRESS, TIMER } from '../adapter/envelope.ts';
import type { Queue, Store } from '../adapter/ports.ts';
import type { ActorRecord, DeadLetter, FailingMessage, Timer } from '../adapter/storedRecords.ts';
import { BatonError, batonError, ErrorCode } from '../errors.ts';
import { parseActorId } from '../shared/actorId.ts';
import { RECHECK_TIMER } from '../workflow/advance.ts';
import { failingNotDeadLettered, failingSummary } from './failingHead.ts';
import { batonCommand, type FollowUp } from './followUp.ts';
import { changeRecord, type OperatorOptions } from './operatorCommit.ts';
import { parkedLetterRefused } from './parking.ts';

/**
 * Pauses an actor: from its next turn on it applies nothing, and its messages are parked in
 * the order they arrive (never retried, never dead-lettered) until {@link resumeActor}. Other
 * actors go on. A wake-up sent to its inbox makes the worker holding it warm read the paused
 * record; another worker's warm record may still run the handlers of one batch, whose commit
 * the pause then refuses (nothing of it is applied). Pausing a paused actor changes nothing.
 * Refused with INVALID_STATE while a message is failing at the head of its inbox, unless
 * `force`: parked, it would run again from its first attempt once resumed (see
 * {@link PauseOptions.force}); `endFailingMessage` is what stops it.
 * A paused actor's record is not deleted, even a halted one's past its expiry: it is once
 * resumed, and its parked messages applied, if it is still halted then.
 *
 * @example
 * await pauseActor(store, queue, 'account/alice', { by: 'arn:aws:iam::123456789012:user/ops' });
 */
export async function pauseActor(
  store: Store,
  queue: Queue,
  actorId: string,
  { by, now = Date.now(), followUp = batonCommand, force = false }: PauseOptions,
): Promise<ActorRecord> {
  // A paused record keeps its expiry, but no store deletes it while paused (see deletableAt).
  const record = await changeRecord(store, actorId, now, (current) => {
    if (current.paused) return undefined;
    if (current.failing && !force) throw pauseOfFailing(current, current.failing, followUp);
    return { record: { ...current, paused: { at: now, by } } };
  });
  await wake(queue, record, now);
  return record;
}

export interface PauseOptions extends OperatorOptions {
  /**
   * Pause an actor whose head message is failing too: the pause parks that message at its next
   * delivery, dropping its count of attempts (and an operator's end of it), so its handler runs
   * again from its first attempt once the actor is resumed.
   * @default false
   */
  readonly force?: boolean;
}

/**
 * The refusal to pause an actor whose head message is failing (without `force`): a pause would
 * park it and restart its attempts, and would drop an end an operator made of it. The messages
 * behind it wait already; ending it is what stops its handler.
 */
function pauseOfFailing(
  record: ActorRecord,
  failing: FailingMessage,
  followUp: FollowUp,
): BatonError {
  const { id: actorId } = record;
  const messageId = failing.id;
  const why = failing.ended
    ? `an operator ended it (${failing.ended.by}, at ${new Date(failing.ended.at).toISOString()}), and its next delivery keeps it as a dead letter without running its handler; a pause would park it at that delivery instead, dropping the end, and its handler would run again once resumed. Let the end take effect first (${followUp`actors get ${actorId}`} shows no failing message then), then pause`
    : `a pause would park it at its next delivery and drop its count, so its handler would run again from its first attempt once resumed. The messages behind it wait already: to stop its handler running again, end it (${followUp`actors end-failing ${actorId} ${messageId}`})`;
  return new BatonError(
    ErrorCode.INVALID_STATE,
    `${actorId} was not paused: message ${messageId} is failing at the head of its inbox (${failingSummary(failing)}), and ${why}. To pause it all the same, or if the message left the inbox (the inbox's dead-letter queue took it: ${followUp`queue-dead-letters list`}), pass --force (pauseActor's force)`,
    {
      details: {
        actorId,
        messageId,
        attempts: failing.attempts,
        ended: failing.ended !== undefined,
      },
    },
  );
}

/**
 * Sends the actor a wake-up: a message that only makes its next turn read the record from the
 * store, not from a worker's warm cache, so it sees what an operator changed. It is a redrive
 * of no dead letter, so it applies nothing. Its id, the queue's dedupe id, names the actor: the
 * inbox drops a second message of one id within its dedupe window whatever its group, and two
 * records without a life (written before lives) at one version would share one otherwise.
 */
async function wake(queue: Queue, record: ActorRecord, now: number): Promise<void> {
  const id = `operator:${record.id}:${record.life ?? ''}:${record.ver}`;
  const envelope: Envelope = {
    id,
    from: 'ingress',
    seq: 0,
    to: record.id,
    name: '$wake',
    payload: null,
    sentAt: now,
    redrive: now,
  };
  await queue.send([{ group: record.id, dedupeId: id, body: encodeEnvelope(envelope) }]);
}

/**
 * Resumes a paused actor: its next turn applies the messages parked meanwhile, in order, each
 * exactly once, before any other. A wake-up is sent to its inbox so that turn runs even if
 * nothing else arrives. Resuming an actor not paused changes nothing but sends the wake-up
 * again (a lost one would leave what it parked waiting for its next message); one with no
 * record, nothing at all.
 *
 * @example
 * await resumeActor(store, queue, 'account/alice', { by: 'ops' });
 */
export async function resumeActor(
  store: Store,
  queue: Queue,
  actorId: string,
  { now = Date.now() }: OperatorOptions,
): Promise<ActorRecord> {
  const record = await changeRecord(store, actorId, now, (current) => {
    if (!current.paused) return undefined;
    const { paused: _, ...rest } = current;
    return { record: rest };
  });
  // Woken even if it was resumed already: the wake of that resume may have been lost, leaving
  // its parked messages to wait for its next message. An actor with no record has none.
  if (record.ver > 0) await wake(queue, record, now);
  return record;
}

/**
 * Forgets a dead letter without applying it (`baton dead-letters purge`). A parked message is
 * not a dead letter, nor is the message failing at the head of the inbox: each is refused with
 * INVALID_STATE, saying so (and how to end the failing one: `endFailingMessage`). The dead
 * letter of a timer's fire goes with its timer, kept until then: the fire is never applied. An ask's continuation
 * still runs once: the letter of its reply goes, and the ask's timeout, held with it, is left
 * to fire (the asker is told ASK_TIMEOUT); the letter of the timeout's own fire is refused with
 * INVALID_ARGUMENT, as its asker would then wait for good (redrive it instead). A client's
 * plain send ends DEAD_LETTERED for good: its outcome, which waited for a redrive
 * (`awaitsRedrive`), no longer does, and an ask waiting under its key is told DEAD_LETTERED.
 *
 * @example
 * await purgeDeadLetter(store, 'account/alice', 'ingress:["account/alice","dep-1"]', { by: 'ops' });
 */
export async function purgeDeadLetter(
  store: Store,
  actorId: string,
  messageId: string,
  { now = Date.now(), followUp = batonCommand }: OperatorOptions,
): Promise<void> {
  await changeRecord(store, actorId, now, async (record) => {
    const letter = await store.readDeadLetter(actorId, messageId);
    if (letter?.parked !== undefined) throw parkedLetterRefused(letter, 'purge', followUp);
    if (!letter) {
      throw (
        failingNotDeadLettered(record, messageId, followUp) ??
        noDeadLetter(actorId, messageId, followUp)
      );
    }
    if (letter.applied) throw noDeadLetter(actorId, messageId, followUp);
    const kept = await heldTimer(store, letter);
    // An ask's timeout holds its asker's continuation: it stays, to end the ask (its own fire's
    // letter is refused: nothing would end the ask then).
    const ask = kept && askLetter(letter, kept);
    if (ask === 'timeout') throw askTimeoutPurgeRefused(actorId, messageId, followUp);
    // A plain send's outcome waited for a redrive: now DEAD_LETTERED is final, which an ask
    // waiting under its key is told.
    const outcome =
      letter.envelope.from === INGRESS
        ? await store.readIdempotency(messageId, letter.envelope.sentAt)
        : undefined;
    const ended = outcome && awaitsRedrive(outcome) ? [endedWithoutRedrive(outcome)] : [];
    return {
      record,
      deadLetters: { put: [], remove: [messageId] },
      ...(ended.length > 0 ? { replaceIdempotency: ended } : {}),
      ...(kept
        ? {
            timers:
              ask === 'reply'
                ? { put: [waiting(kept)], remove: [] }
                : { put: [], remove: [kept.id] },
          }
        : {}),
    };
  });
}

/**
 * The timer a timer's fire's letter holds (or an ask's reply's): stored, marked `deadLettered`,
 * of the letter's scheduling (the app may have scheduled the id anew since); else `undefined`.
 */
async function heldTimer(store: Store, letter: DeadLetter): Promise<Timer | undefined> {
  if (!letter.timer) return undefined;
  const timer = await store.readTimer(letter.actorId, letter.timer.id);
  return timer?.deadLettered && timer.gen === letter.timer.gen ? timer : undefined;
}

/** Which of an ask's letters holds `timer`, its timeout: its own fire's, or its reply's. */
function askLetter(letter: DeadLetter, timer: Timer): 'timeout' | 'reply' | undefined {
  if (timer.id !== askTimerId(timer.gen)) return undefined;
  return letter.envelope.replyTo === undefined ? 'timeout' : 'reply';
}

/**
 * Whether `letter` is an ask's whose timeout is held with it, as {@link purgeDeadLetter} tells
 * it: the letter of the timeout's own fire (`timeout`), which a purge refuses, or of its reply
 * (`reply`), whose purge leaves the timeout to fire; else `undefined`. Only a letter that names
 * an ask's timer is read for.
 */
export async function heldAsk(
  store: Store,
  letter: DeadLetter,
): Promise<'timeout' | 'reply' | undefined> {
  if (!letter.timer || letter.timer.id !== askTimerId(letter.timer.gen)) return undefined;
  const timer = await heldTimer(store, letter);
  return timer && askLetter(letter, timer);
}

/** A timer held with its fire's letter (`deadLettered`), left to fire when due. */
function waiting({ deadLettered: _, ...timer }: Timer): Timer {
  return timer;
}

/** The refusal to purge the letter of an ask's timeout: its asker would wait for good. */
function askTimeoutPurgeRefused(
  actorId: string,
  messageId: string,
  followUp: FollowUp,
): BatonError {
  return new BatonError(
    ErrorCode.INVALID_ARGUMENT,
    `dead letter ${messageId} of ${actorId} is the timeout of an ask of ${actorId}'s: it holds the asker's continuation, and purged, ${actorId} would wait for good (a reply that comes later is dropped as late). It was not purged. Fix what made the continuation fail, deploy, then redrive it (${followUp`dead-letters redrive ${actorId} ${messageId}`}): the continuation runs once, with ASK_TIMEOUT`,
    { details: { actorId, messageId } },
  );
}

/**
 * Cancels a pending timer of an actor (`baton timers cancel`): it never fires. Cancelling a
 * timer that fired or was cancelled meanwhile is refused with NOT_FOUND. The timers Baton keeps
 * for itself are refused with INVALID_ARGUMENT, saying what to do instead: an ask's timeout
 * (`ask:<id>`), which holds the asker's continuation — without it the reply finds nothing to
 * resume and is dropped as late, leaving the asker (a workflow's call) waiting for good — and
 * every timer of a workflow instance (its sleeps, its waits' timeouts, its retries and its
 * retention), which its run alone schedules and cancels; but for a paused instance's recheck,
 * which may go (it stays paused until a resume).
 *
 * @example
 * await cancelTimer(store, 'order/42', 'reminder', { by: 'ops' });
 */
export async function cancelTimer(
  store: Store,
  actorId: string,
  timerId: string,
  { now = Date.now(), followUp = batonCommand }: OperatorOptions,
): Promise<void> {
  await changeRecord(store, actorId, now, async (record) => {
    const timer = await store.readTimer(actorId, timerId);
    if (!timer) {
      const letters = await store.listDeadLetters(actorId);
      // A fire parked by an earlier release, which removed its timer as fired: resumed, it
      // applies. (One parked since keeps its timer, which a cancel removes: it then never runs.)
      const parked = letters.find(
        (l) => l.parked !== undefined && !l.timer && firedTimer(l) === timerId,
      );
      if (parked) throw parkedFireRefused(parked, followUp);
      throw new BatonError(
        ErrorCode.NOT_FOUND,
        `${actorId} has no pending timer ${timerId}: it fired or was cancelled; list them with ${followUp`timers list ${actorId}`}`,
        { details: { actorId, timerId } },
      );
    }
    const owned = ownedTimer(actorId, timer, followUp);
    if (owned) throw owned;
    return { record, timers: { put: [], remove: [timerId] } };
  });
}

/**
 * The refusal to cancel a timer whose fire an earlier release parked at its paused actor (its
 * timer removed as fired): resumed, it applies.
 */
function parkedFireRefused(letter: DeadLetter, followUp: FollowUp): BatonError {
  const { actorId, messageId } = letter;
  const timerId = firedTimer(letter);
  return batonError(
    ErrorCode.INVALID_STATE,
    `timer ${timerId} of ${actorId} fired while ${actorId} was paused: its fire (message ${messageId}) is parked, and is applied, in order, when ${actorId} is resumed (${followUp`actors resume ${actorId}`}); a parked fire cannot be cancelled: to keep it from being applied, deploy code whose handler leaves it be, then resume ${actorId}`,
    { actorId, timerId, messageId, parked: letter.parked },
  );
}

/** The id of the timer whose fire `letter` holds (its message id `timer:[actor, id, gen]`). */
function firedTimer(letter: DeadLetter): string | undefined {
  if (letter.envelope.from !== TIMER) return undefined;
  try {
    const [, id] = JSON.parse(letter.messageId.slice(TIMER.length + 1)) as unknown[];
    return typeof id === 'string' ? id : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Why `timer` is one Baton keeps for itself and no operator may cancel, with what to do
 * instead; `undefined` for a timer the app's own code scheduled.
 */
function ownedTimer(actorId: string, timer: Timer, followUp: FollowUp): BatonError | undefined {
  const details = { actorId, timerId: timer.id };
  // An ask's timeout is stored under its ask's id (its `gen`): an app's own timer named
  // `ask:…` has a generation of its own.
  if (timer.id === askTimerId(timer.gen)) {
    const asked = askedOf(timer.payload);
    const target = asked?.to ?? 'the actor asked';
    const what = asked
      ? `${actorId}'s ask of "${asked.name}" to ${asked.to}`
      : `an ask of ${actorId}`;
    // A timer that names no actor asked: its hints take a placeholder, not those words.
    const resume = asked ? followUp`actors resume ${asked.to}` : followUp`actors resume <type/key>`;
    const letters = asked
      ? followUp`dead-letters list --type ${typeOf(asked.to)}`
      : followUp`dead-letters list`;
    // Marked: its reply (or its timeout's fire) is held at the asker, parked or dead-lettered.
    const instead = timer.deadLettered
      ? `Its reply (or its timeout's fire) is held at ${actorId}, parked while it is paused or kept as its dead letter: resume ${actorId} (${followUp`actors resume ${actorId}`}), or redrive that letter (${followUp`dead-letters list --type ${typeOf(actorId)}`}), and the continuation runs`
      : `Let the reply come instead: resume ${target} if it is paused (${resume}), redrive its dead letter (${letters}), or wait for the timeout, due ${new Date(timer.at).toISOString()}, which the asker handles as a failed ask`;
    return new BatonError(
      ErrorCode.INVALID_ARGUMENT,
      `timer ${timer.id} is the timeout of ${what}: it holds the asker's continuation, and cancelled, the reply would find none and be dropped, leaving ${actorId} waiting for good. It was not cancelled. ${instead}`,
      { details },
    );
  }
  // A paused instance's recheck may go: it stays paused, and a resume replays it.
  if (actorId.startsWith(WORKFLOW_TYPE_PREFIX) && timer.id !== RECHECK_TIMER) {
    const name = typeOf(actorId).slice(WORKFLOW_TYPE_PREFIX.length);
    const id = parseActorId(actorId)?.key ?? '';
    return new BatonError(
      ErrorCode.INVALID_ARGUMENT,
      `timer ${timer.id} is workflow ${name}'s own (a sleep, a wait's timeout, a retry or its retention): its run schedules and cancels it, and without it the instance would wait for good. It was not cancelled. To end the instance, cancel or terminate it (${followUp`workflows cancel ${name} ${id}`}); to hurry a wait, send its event (${followUp`workflows signal ${name} ${id} <event>`})`,
      { details },
    );
  }
  return undefined;
}

/** The reply an ask's timeout timer keeps: whom it asked, and what. */
function askedOf(payload: unknown): { to: string; name: string } | undefined {
  const details = (payload as { error?: { details?: { to?: unknown; name?: unknown } } } | null)
    ?.error?.details;
  return typeof details?.to === 'string' && typeof details.name === 'string'
    ? { to: details.to, name: details.name }
    : undefined;
}

/** The type of actor id `type/key`. */
const typeOf = (actorId: string) => parseActorId(actorId)?.type ?? '';

function noDeadLetter(actorId: string, messageId: string, followUp: FollowUp): BatonError {
  return new BatonError(
    ErrorCode.NOT_FOUND,
    `${actorId} keeps no dead letter ${messageId}: it was redriven or purged already, or never dead-lettered; list them with ${followUp`dead-letters list`}`,
    { details: { actorId, messageId } },
  );
}
