/**
 * Admission: whether a message of a batch is applied, or skipped as one applied already — and,
 * for a timer's fire or an ask's reply, the message as its handler sees it.
 */
import { askTimerId, type Envelope, isActorSender } from '../adapter/envelope.ts';
import { compareSeq } from '../adapter/ports.ts';
import type { DeadLetter, Timer } from '../adapter/storedRecords.ts';
import type { Admission, Turn } from './admission.ts';
import type { CommitBuilder } from './CommitBuilder.ts';
import { classify, inForgottenGaps } from './channels.ts';
import type { TurnEngine } from './createEngine.ts';
import type { Inbound } from './Inbound.ts';
import { isReplacedQueue } from './inboxQueue.ts';
import type { PagedLookup } from './outcomePages.ts';
import { ofEndedLife } from './redriveNeedsForce.ts';
import { isVoid } from './timers.ts';
import { asOldAs, clockMargin, inForgottenGap, isEndedLifeCopy } from './turnErrors.ts';

/**
 * Decides whether a message is applied, or skipped as one applied already (by inbox offset,
 * per-channel mark, idempotency key, a redrive whose dead letter is gone, the fire of a timer
 * that fired, was cancelled or was scheduled anew, or a copy of a message of a sender's ended
 * life that is kept as a dead letter).
 */
export async function admit(
  turn: Turn,
  inbound: Inbound,
  duplicateKeys: ReadonlySet<string>,
  pages: PagedLookup,
): Promise<Admission | undefined> {
  const { engine, builder } = turn;
  const { envelope } = inbound;
  const record = builder.record;
  const offset = isReplacedQueue(record, inbound) ? '0' : record.inboxOffset;
  if (compareSeq(inbound.queueSeq, offset) <= 0) return undefined;
  if (envelope.redrive !== undefined) {
    const kept = await engine.store.readDeadLetter(record.id, envelope.id);
    // A parked message is applied from the record's count, never by a redrive (a resume's
    // wake-up is one); a letter kept as the proof of a redrive applied is not redriven again.
    if (kept?.at !== envelope.redrive || kept.parked !== undefined || kept.applied) {
      return undefined;
    }
    // Its life may have ended since the redrive was sent (a halt queued before it): a plain
    // redrive leaves the letter kept then, as the redrive would have been refused.
    if (!envelope.redriveForced && ofEndedLife(kept, record)) return undefined;
    return redriven(turn, kept);
  }
  if (envelope.timer) {
    const { id, gen } = envelope.timer;
    const timer = await storedTimer(engine, builder, id, gen);
    // A fire whose first copy was dead-lettered waits for its redrive.
    if (timer?.gen !== gen || timer.deadLettered) return undefined;
    return isVoid(record, timer) ? { voids: timer } : { fires: timer };
  }
  if (isActorSender(envelope)) {
    const onChannel = await channelAdmission(turn, envelope);
    if (!onChannel) return undefined;
    if (envelope.replyTo === undefined) return onChannel;
    // A reply goes to the ask's continuation while its timeout timer is stored.
    const timer = await storedTimer(
      engine,
      builder,
      askTimerId(envelope.replyTo),
      envelope.replyTo,
    );
    // The ask timed out, or its reply was dead-lettered: the continuation runs from that.
    if (timer?.gen !== envelope.replyTo || timer.deadLettered) {
      return { ...onChannel, lateReply: true };
    }
    return isVoid(record, timer)
      ? { ...onChannel, lateReply: true, voids: timer }
      : { ...onChannel, fires: timer };
  }
  if (duplicateKeys.has(envelope.id)) return undefined;
  // A copy as old as its outcome may find a letter of it instead (one that waits for its
  // redrive, or the proof one left), which it must not overwrite as too old to tell.
  const age = engine.clock.now() - envelope.sentAt;
  if (
    asOldAs(age, engine.idempotencyRetentionMs) &&
    (await keptAlready(engine, builder, envelope))
  ) {
    return undefined;
  }
  if (!pages.mayHold(record, envelope.sentAt)) return {};
  return (await pages.applied(record, envelope.id, envelope.sentAt)) ? undefined : {};
}

/**
 * Where an actor's message stands on its channel: by the receiver's mark for the sender, or
 * `undefined` for a copy applied already. A message of a sender's life that ended is judged by
 * no mark (a new life of the sender may own it): it is kept as a dead letter (see
 * `senderLifeEnded`), and a copy finds it kept — or, once a redrive applied it, kept as the
 * proof of that ({@link DeadLetter.applied}). A copy as old, but unmarked, is looked for there
 * too; kept nowhere, it is judged by no mark either (the mark may be a new life's, which would
 * take it for that life's next message, or for a copy of one), so it is kept as a dead letter,
 * too old to tell (see `outlivedItsProof`). Any copy as old as the mark retention is looked for
 * there first, whatever the mark says: a letter of it, or the proof its redrive left, tells it.
 */
async function channelAdmission(
  { engine, overflow, builder }: Turn,
  envelope: Envelope,
): Promise<Admission | undefined> {
  const { record } = builder;
  const ended = isEndedLifeCopy(envelope);
  if (ended || mayBeOfEndedLife(engine, envelope)) {
    return (await keptAlready(engine, builder, envelope)) ? undefined : {};
  }
  const mark = await overflow.sender(record, envelope.from);
  // A copy as old as the mark retention may have been kept as too old to tell: a letter of it
  // (one that waits for its redrive, or the proof a redrive of it left) tells it. Whatever the
  // mark says now: a mark made since by an earlier message of the sender, younger by its stamp
  // (this one's was taken on a clock behind, within the day's margin), takes it for the next.
  const age = engine.clock.now() - envelope.sentAt;
  if (asOldAs(age, engine.markRetentionMs) && (await keptAlready(engine, builder, envelope))) {
    return undefined;
  }
  const arrival = classify(mark, envelope);
  if (arrival.kind !== 'duplicate') return { arrival, mark };
  // Where the mark forgot its gaps, a copy may as well be a missing message: kept, once.
  if (!inForgottenGaps(mark, envelope)) return undefined;
  return (await keptAlready(engine, builder, envelope))
    ? undefined
    : { mark, tooOld: inForgottenGap(envelope) };
}

/**
 * Whether a letter of `envelope` is kept: by the pending commit (an earlier copy in this batch),
 * or in the store — waiting for its redrive, or the proof one left ({@link DeadLetter.applied}).
 */
async function keptAlready(
  engine: TurnEngine,
  builder: CommitBuilder,
  envelope: Envelope,
): Promise<boolean> {
  const kept =
    builder.pendingLetter(envelope.id) ??
    (await engine.store.readDeadLetter(builder.record.id, envelope.id));
  return kept !== undefined;
}

/**
 * Whether a message, not marked {@link Envelope.lifeEnded}, is as old as one of a sender's life
 * that has ended since: a halted record expires twice the mark retention after its last commit.
 * Such a copy (drained unmarked before the life ended, or by an earlier Baton) is looked for
 * among the receiver's kept letters first: the receiver's mark for the sender may be a new
 * life's, and would take it for that life's next message, or a gap's.
 */
function mayBeOfEndedLife(engine: TurnEngine, envelope: Envelope): boolean {
  const retention = engine.markRetentionMs;
  const age = engine.clock.now() - envelope.sentAt;
  return age >= 2 * retention - clockMargin(retention);
}

/** An ingress message: told apart from a copy of it by its outcome (its key) alone. */
export function knownByOutcome(envelope: Envelope): boolean {
  return envelope.redrive === undefined && !envelope.timer && !isActorSender(envelope);
}

/**
 * A kept letter applied: a redriven dead letter, or a message parked at an actor now resumed.
 * A timer's fire (or an ask's reply) among them is applied only while its timer is stored for
 * it still; after a cancel, a new scheduling of the id or a halt, the letter is forgotten and
 * nothing applied — the fire of a cancelled timer never runs.
 */
export async function redriven(turn: Turn, kept: DeadLetter): Promise<Admission> {
  const fire = kept.timer;
  if (!fire) return { redrives: kept };
  const { engine, builder } = turn;
  const timer = await storedTimer(engine, builder, fire.id, fire.gen);
  if (timer?.gen !== fire.gen) return { forgets: kept };
  return isVoid(builder.record, timer)
    ? { forgets: kept, voids: timer }
    : { redrives: kept, fires: timer };
}

/**
 * Timer `id` as the pending commit leaves it (an earlier message of the batch may have changed
 * it), else as stored. The scheduling `gen` that this worker's own commits stored is known
 * without a read; only that match is taken on trust, since it leads to a commit, whose version
 * condition checks it — while what skips a message commits nothing, and is read.
 */
async function storedTimer(
  engine: TurnEngine,
  builder: CommitBuilder,
  id: string,
  gen: string,
): Promise<Timer | null | undefined> {
  const pending = builder.pendingTimer(id);
  if (pending !== undefined) return pending;
  const { record } = builder;
  const known = engine.cache.knownTimer(record.id, builder.baseVer, record.life, id);
  if (known?.gen === gen && !known.deadLettered) return known;
  return engine.store.readTimer(record.id, id);
}

/**
 * The message as the handler sees it. A timer's fire: the name, payload and trace the timer was
 * scheduled with. An ask's reply: the continuation's name, and the reply with the ask's context.
 */
export function fired(inbound: Inbound, timer: Timer): Inbound {
  const { envelope } = inbound;
  if (envelope.replyTo !== undefined) {
    const { context } = timer.payload as { context: unknown };
    const payload = { ...(envelope.payload as object), context };
    return { ...inbound, envelope: { ...envelope, name: timer.name, payload } };
  }
  const { traceparent: _, ...rest } = envelope;
  return {
    ...inbound,
    envelope: {
      ...rest,
      name: timer.name,
      payload: timer.payload,
      ...(timer.traceparent ? { traceparent: timer.traceparent } : {}),
    },
  };
}
