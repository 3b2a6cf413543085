/**
 * A message moves its actor's record on whatever it does to the state: the inbox offset past
 * it, the sender's mark (a channel's gaps told and bounded), channels pruned, and a halted
 * actor's expiry kept ahead of the marks and sends of the commit.
 */
import { isActorSender } from '../adapter/envelope.ts';
import type { SenderMark } from '../adapter/marks.ts';
import type { ActorRecord } from '../adapter/storedRecords.ts';
import { NO_STATE_VERSION } from '../stateVersions.ts';
import {
  type Arrival,
  forgetOldestGaps,
  markAfter,
  maxGaps,
  pruneChannels,
  pruneMarks,
} from './channels.ts';
import { copyRecord, type RecordDraft } from './copyRecord.ts';
import type { TurnEngine } from './createEngine.ts';
import type { Inbound } from './Inbound.ts';
import { asOldAs, clockMargin } from './turnErrors.ts';

/**
 * What the worker logs, at error, when a channel has more gaps than its mark holds: the oldest
 * are forgotten, and a message that comes there, missing or a copy, is kept as a dead letter,
 * too old to tell. The CDK construct's ForgottenGapsAlarm counts these lines.
 */
export const GAPS_FORGOTTEN_LOG =
  'gaps on a channel forgotten: a message there is kept as a dead letter';

/**
 * The lines the alarm counts: {@link GAPS_FORGOTTEN_LOG}, and the one an earlier Baton (which
 * skipped such a message as applied) logged, while a deploy rolls.
 */
export const GAPS_FORGOTTEN_LOGS: readonly string[] = [
  GAPS_FORGOTTEN_LOG,
  'gaps on a channel forgotten: a message missing there is skipped',
];

/**
 * The record with the inbox offset and the sender's mark moved past `inbound`, at `now`: the
 * mark as `arrival` places the message against `mark` (none: the mark stays).
 */
export function advance(
  engine: TurnEngine,
  current: ActorRecord,
  inbound: Inbound,
  admission: { readonly arrival?: Arrival; readonly mark?: SenderMark },
  now = engine.clock.now(),
): ActorRecord {
  const { envelope } = inbound;
  let marks = pruneMarks(current.marks, now - engine.markRetentionMs);
  const { arrival, mark } = admission;
  let forgot = false;
  if (arrival && isActorSender(envelope)) {
    if (arrival.kind === 'gap' && !arrival.reopened) {
      const fields = {
        actor: current.id,
        from: envelope.from,
        messageId: envelope.id,
        missingAfter: arrival.missing[0],
        missingUpTo: arrival.missing[1],
      };
      if (mark === undefined && mayHaveOutlivedMark(engine, envelope.sentAt, now)) {
        engine.logger.warn(
          'gap on a channel past a forgotten mark: the messages it skips were most likely applied',
          fields,
        );
      } else {
        engine.logger.error(
          'gap on a channel: messages from the sender never arrived in order',
          fields,
        );
      }
    } else if (arrival.kind === 'late') {
      engine.logger.warn('applying a message that was missing from its channel', {
        actor: current.id,
        messageId: envelope.id,
      });
    }
    // A mark lives a retention from its time: the time of the apply, but at most a retention
    // (less the clocks' margin) after the message was sent, so that a copy applied late (a gap's
    // redrive from the queue's dead-letter queue) does not keep it past the sender's record (see
    // `halted`). A copy that comes once the mark is gone is as old as that, and is kept, not
    // applied (see `outlivedItsProof`).
    const retention = engine.markRetentionMs;
    const at = Math.min(now, envelope.sentAt + retention - clockMargin(retention));
    const bounded = forgetOldestGaps(
      markAfter(mark, envelope, arrival, at),
      maxGaps(engine.store.limits.maxItemBytes),
    );
    if (bounded.forgotten.length > 0) {
      forgot = true;
      engine.logger.error(GAPS_FORGOTTEN_LOG, {
        actor: current.id,
        from: envelope.from,
        forgotten: bounded.forgotten,
      });
    }
    marks = { ...marks, [envelope.from]: bounded.mark };
  }
  // Channels are forgotten well before the receivers' marks (half the retention): a message that
  // opens a channel anew may meet a receiver's mark that stayed, which then remembers what lies
  // between as missing (see `classify`).
  const channels = pruneChannels(current.channels, now - engine.markRetentionMs / 2);
  const inboxOffset = inbound.queueSeq;
  // A halted actor stays halted through a message it does not apply (a late reply to an ask
  // of before the halt, a rejection, a dead letter), and its record outlives the marks and
  // sends this commit makes. Only `applyMessage` revives it. A fresh one expires the same way.
  const expiresAt =
    current.expiresAt !== undefined
      ? Math.max(current.expiresAt, halted(engine, now))
      : isFresh(current)
        ? halted(engine, now)
        : undefined;
  let next: RecordDraft;
  // Most records have neither part below: one copy, field by field (see copyRecord).
  if (inbound.queue === undefined && expiresAt === undefined) {
    next = copyRecord(current);
    next.inboxOffset = inboxOffset;
    next.marks = marks;
    next.channels = channels;
  } else {
    const queue = inbound.queue === undefined ? {} : { inboxQueue: inbound.queue };
    const expiry = expiresAt === undefined ? {} : { expiresAt };
    next = { ...current, ...expiry, inboxOffset, ...queue, marks, channels };
  }
  // The inbox moved on: the failures counted were the head's (see attempts.ts).
  if (next.failing !== undefined) delete next.failing;
  if (forgot) next.format = Math.max(next.format ?? 1, FORGOTTEN_GAPS_FORMAT);
  return next;
}

/**
 * The record format of an actor whose mark of a sender forgot gaps: an earlier Baton would write
 * the mark back without what it forgot ({@link SenderMark.forgottenUpTo}), and skip a message
 * that comes there again, so it must not write the record (see `checkFormat`).
 */
const FORGOTTEN_GAPS_FORMAT = 3;

/**
 * Whether a message sent at `sentAt` may have outlived its receiver's mark of the one before it
 * on its channel: the sender remembers a channel half the mark retention (its `prev` is of a
 * message sent within that), and the receiver a mark the retention from that message. So a
 * message younger than half the retention that finds no mark shows a message lost; an older
 * one, most likely a mark forgotten (an ask's reply or a redrive weeks late).
 */
function mayHaveOutlivedMark(engine: TurnEngine, sentAt: number, now: number): boolean {
  return asOldAs(now - sentAt, engine.markRetentionMs / 2);
}

/**
 * Whether `record` is an actor's as a turn finds it when the store has none — never committed,
 * no message moved it yet — of a type this code knows. Such an actor holds nothing of its own
 * until a message changes its state (or sets a timer), so one whose messages leave it so — a
 * rejection, a dead letter, a forged callback, a late reply to an ended workflow — is kept as a
 * halted one is, for a while, not for good: else any message to an id nobody uses would leave a
 * record behind for ever.
 */
export function isFresh(record: ActorRecord): boolean {
  return record.ver === 0 && record.inboxOffset === '0' && record.stateVersion !== NO_STATE_VERSION;
}

/**
 * When the record of an actor halted (or kept halted) at `now` may be deleted: once every
 * receiver has forgotten its marks of this life's messages, and this life's of theirs. A mark
 * is at most the retention old when the last message of the life is applied, and that is
 * within the queue's retention — under half of it. A new life then meets no mark of this
 * one, and its ids carry its own life id.
 */
export function halted(engine: TurnEngine, now: number): number {
  return now + 2 * engine.markRetentionMs;
}
