/**
 * What one message does to its actor's record in a turn: the handler run on a draft, or a
 * rejection, or nothing but moving on (a skip) — each as the `MessageEffects` a commit is built
 * from, with the inbox offset and the sender's mark moved past the message. A message the turn
 * ends as a dead letter is in keptLetters.ts.
 */
import { jsonSize } from '../adapter/conflicts.ts';
import { type Envelope, INGRESS, parseActorId } from '../adapter/envelope.ts';
import type { ActorRecord, Timer } from '../adapter/storedRecords.ts';
import type { HandlingTrace } from '../adapter/traceContext.ts';
import { type BatonError, toBatonError } from '../errors.ts';
import type { Writable } from '../shared/Writable.ts';
import { upgradeStateForTurn } from '../stateVersions.ts';
import type { Admission, Turn } from './admission.ts';
import { advance, halted } from './advanceRecord.ts';
import { asJson, asStrictJson, findCollection } from './asJson.ts';
import { attemptsMade, outOfAttempts } from './attempts.ts';
import type { CommitBuilder } from './CommitBuilder.ts';
import type { MessageEffects } from './commitParts.ts';
import type { RecordDraft } from './copyRecord.ts';
import type { TurnEngine } from './createEngine.ts';
import { createHandlerContext } from './createHandlerContext.ts';
import type { Inbound } from './Inbound.ts';
import { isInitial, leftAsNew } from './initialState.ts';
import { appliedProof, deadLetter } from './keptLetters.ts';
import { maxOutcomeBytes, outcomeTooLarge } from './outcomePages.ts';
import { failedOutcome, idempotencyFor } from './outcomes.ts';
import { askReply, askReplyRefused, outgoing } from './outgoing.ts';
import { recordConfirmation } from './recordConfirmation.ts';
import { withRecord } from './recordRoom.ts';
import { HALT_TIMER_REMOVALS, stamped } from './timers.ts';
import {
  initialBreaksSchema,
  keptAsDeadLetter,
  leftNotJson,
  replyTooLarge,
  stateBreaksSchema,
  stateTooLarge,
  waitsForNewerCode,
} from './turnErrors.ts';

/**
 * What the worker logs (at warn, with `actor`, `messageId`, `attempt`, `error` and the stack)
 * for a handler's retryable failure: operators search the log for it.
 */
export const RETRY_LOG = 'message will be retried';

/** {@link RETRY_LOG} for the attempt after which the message is kept as a dead letter. */
export const LAST_ATTEMPT_LOG = 'message failed its last attempt; it is kept as a dead letter';

/**
 * What a handling returns that asked to be done again once the turn's earlier messages commit
 * (see `COMMIT_FIRST` in contextSlots.ts): it has no effects.
 */
export const HANDLE_AGAIN = Symbol('handle again on a committed record');

/**
 * Runs the handler on a draft; returns its effects, a rejection, the error that stops the batch,
 * or {@link HANDLE_AGAIN}.
 */
export async function applyMessage(
  turn: Turn,
  current: ActorRecord,
  inbound: Inbound,
  admission: Admission,
  trace: HandlingTrace | undefined,
  /** The handling's time: the handler's `ctx.now()`, the marks' and the outcome's clock. */
  now: number,
): Promise<MessageEffects | BatonError | typeof HANDLE_AGAIN> {
  const { engine, builder } = turn;
  const { envelope } = inbound;
  let reply: unknown;
  let effects: ReturnType<typeof createHandlerContext>;
  let stateVersion: number;
  let definition: ReturnType<typeof engine.registry.resolve>['definition'];
  const confirm = turn.warm ? recordConfirmation(engine, current, builder.baseVer) : undefined;
  // What the code left that cannot be stored (not JSON, refused by its schema, past the record
  // limit) or sent (a call its ctx refused: `details.sentBy` names this actor) is the code's
  // fault, not the message's: the message is kept as a dead letter, to redrive once a fix is
  // deployed.
  const kept = (error: BatonError, fix?: string) =>
    deadLetter(
      turn,
      current,
      inbound,
      admission,
      error,
      trace,
      keptAsDeadLetter(envelope, error, fix),
    );
  // The message's own fault (a handler's terminal error, a reply refused or too large to
  // store): it is rejected for good, and an asker told.
  const rejected = (error: BatonError) => reject(turn, current, inbound, admission, error, trace);
  try {
    const message = resolveInbound(engine, envelope);
    definition = message.definition;
    stateVersion = definition.version;
    // A state written by an earlier version of the definition is migrated first; a migration
    // that throws is the stored state's fault, so the message waits for a fix, whatever the error.
    const draft = upgradeStateForTurn(
      message.definition,
      asJson(current.state),
      current.stateVersion ?? 1,
      current.id,
    );
    effects = createHandlerContext(engine, current.id, draft, envelope, {
      inboxPosition: inbound.queueSeq,
      trace,
      // Each handling of a turn sits at its own place: the pending commit's base version and
      // the messages it holds. A message at that place in another turn never commits with it.
      handling: [current.life ?? null, builder.baseVer, builder.size],
      readPages: (ids) => turn.overflow.pages(ids),
      now,
      ...(confirm && { confirmRecord: confirm.check }),
      uncommitted: builder.size > 0,
      deadline: turn.deadline,
    });
    let returned: unknown;
    try {
      returned = await message.handler.handle(effects.ctx, message.payload);
    } finally {
      effects.ended = true;
    }
    if (effects.commitFirst) return HANDLE_AGAIN;
    reply = effects.reply.set ? effects.reply.value : returned;
  } catch (thrown) {
    // The warm record was not the store's: the turn is done again from the store's (see
    // runTurn). Only the engine's own check does that: a handler's error is the handler's.
    if (confirm?.refused(thrown)) throw thrown;
    const error = toBatonError(thrown);
    if (!error.terminal) {
      // The attempt after which the message is kept as a dead letter (see `handle`) says so.
      const last = outOfAttempts(engine, current, inbound, turn.maxReceives, error);
      engine.logger.warn(last ? LAST_ATTEMPT_LOG : RETRY_LOG, {
        actor: current.id,
        messageId: envelope.id,
        attempt: attemptsMade(engine, current, inbound),
        error: error.message,
        // Where an unexpected error came from: the handler's bug, most of the time.
        ...(thrown instanceof Error && thrown.stack ? { stack: thrown.stack } : {}),
      });
      return error;
    }
    return (error.details.sentBy as { actor?: unknown } | undefined)?.actor === current.id
      ? kept(error, 'fix the handler or the app')
      : rejected(error);
  }
  // State and reply as JSON: what a warm worker keeps is exactly what a reload returns.
  let left: unknown;
  let state: unknown;
  try {
    // A halted actor starts over: what a later message finds is a new one.
    left = effects.halted ? definition.initial(parseActorId(current.id)!.key) : effects.ctx.state;
    // A Map or a Set in state is refused too: JSON would keep it as `{}`, its entries lost.
    state = asStrictJson(left);
  } catch (error) {
    // A halted actor's state is what `initial()` returned: the fault is there.
    const what = effects.halted ? 'initial' : 'state';
    return kept(leftNotJson(current.id, envelope.name, what, error, findCollection(left)));
  }
  // A reply goes to an asker, or into an ingress message's outcome; else nobody reads it.
  if (envelope.ask === undefined && envelope.from !== INGRESS) reply = undefined;
  try {
    reply = asJson(reply);
  } catch (error) {
    return kept(leftNotJson(current.id, envelope.name, 'reply', error));
  }
  if (definition.validateState !== false) {
    const checked = definition.state.safeParse(state);
    if (!checked.success) {
      // State just as `initial()` gives it: the cause is `initial()`, not the handler.
      const blame = isInitial(definition, current, state) ? initialBreaksSchema : stateBreaksSchema;
      return kept(blame(current.id, envelope.name, checked.error.issues));
    }
  }
  const refused = askReplyRefused(engine, envelope, reply);
  if (refused) return rejected(refused);
  const replied = askReply(engine, envelope, { ok: true, value: reply });
  const sends = replied.length === 0 ? effects.sends : [...effects.sends, ...replied];
  const advanced = advance(engine, current, inbound, admission, now);
  // Most messages send nothing: they skip the call (an async one) altogether.
  const out =
    sends.length === 0
      ? { record: advanced, envelopes: [] }
      : await outgoing(turn, advanced, sends, trace);
  // A message the actor applies revives an expiring record (a halted actor's, or a fresh one's:
  // `advance` set it), in the same life, unless it left the actor as a new one: the initial
  // state, no timer (a late reply or wake-up to an ended workflow). Halting sets the record to
  // expire (see `halted`). The record is this message's own (`advance` copied it), so its fields
  // are set in place.
  const next: RecordDraft =
    out.record.expiresAt !== undefined &&
    !effects.halted &&
    leftAsNew(definition, current, state, effects)
      ? out.record
      : withoutExpiry(out.record);
  next.state = state;
  next.stateVersion = stateVersion;
  if (effects.halted) {
    next.expiresAt = halted(engine, now);
    // Halting counts the record's epoch up: every timer scheduled before never fires.
    next.timerEpoch = (current.timerEpoch ?? 0) + 1;
  }
  const bounded = withRecord(engine, next, undefined, now);
  if (bounded.recordBytes + bounded.recordGrowth > engine.store.limits.maxItemBytes) {
    return kept(stateTooLarge(current.id, engine.store.limits));
  }
  const idempotency = idempotencyFor(engine, envelope, { ok: true, value: reply }, now);
  const idempotencyBytes = idempotency && jsonSize(idempotency);
  // A reply too large to store would fail every commit of the batch and block the actor.
  if (idempotency && outcomeTooLarge(engine.store, idempotency, idempotencyBytes)) {
    return rejected(replyTooLarge(envelope, maxOutcomeBytes(engine.store)));
  }
  const done = admissionEffects(engine, admission);
  // The fired timer is removed unless the handler scheduled its id again; halting removes it
  // and what fits a commit of the others, and the rest are skipped when they fire (`isVoid`).
  const timers = effects.halted
    ? await haltTimers(engine, current.id, builder, admission.fires)
    : effects.timers.size === 0
      ? done.timers
      : stamped(current, new Map([...(done.timers ?? []), ...effects.timers]));
  // Built field by field: a message's effects are made once a message, and spreads of
  // optional parts cost more than the rest of this function.
  const applied: Writable<MessageEffects> = {
    record: bounded.record,
    recordBytes: bounded.recordBytes,
    recordGrowth: bounded.recordGrowth,
    unbounded: bounded.unbounded,
    overflow:
      effects.pages.length === 0 ? bounded.overflow : [...bounded.overflow, ...effects.pages],
    envelopes: out.envelopes,
    idempotency,
  };
  if (idempotencyBytes !== undefined) applied.idempotencyBytes = idempotencyBytes;
  if (done.redriven !== undefined) applied.redriven = done.redriven;
  if (done.deadLetter) applied.deadLetter = done.deadLetter;
  if (done.replacesOutcome) applied.replacesOutcome = done.replacesOutcome;
  if (timers) applied.timers = timers;
  return applied;
}

/** `record` without its `expiresAt`: copied only when it has one (a halted actor's). */
function withoutExpiry(record: ActorRecord): ActorRecord {
  if (record.expiresAt === undefined) return record;
  const { expiresAt: _, ...alive } = record;
  return alive;
}

/**
 * The handler and parsed payload of an inbox message. What this code cannot resolve waits for
 * newer code (see {@link waitsForNewerCode}): the doors validated it against the code there.
 */
function resolveInbound(engine: TurnEngine, envelope: Envelope) {
  try {
    return engine.registry.resolve(envelope.to, envelope.name, envelope.payload);
  } catch (error) {
    throw waitsForNewerCode(envelope, toBatonError(error));
  }
}

/**
 * Removals of the timer the halting message fires, first (timers kept for dead-lettered fires,
 * or due at once, may come before it among the stored ones), of the actor's soonest stored
 * timers and of those the pending commit puts. The commit keeps as many as fit
 * ({@link removalsThatFit}).
 */
async function haltTimers(
  engine: TurnEngine,
  actorId: string,
  builder: CommitBuilder,
  fires: Timer | undefined,
): Promise<Map<string, null>> {
  const stored = (await engine.store.listTimers(actorId)).map((timer) => timer.id);
  const removed = [...stored.slice(0, HALT_TIMER_REMOVALS), ...builder.pendingTimerIds()];
  if (fires) removed.unshift(fires.id);
  return new Map(removed.map((id) => [id, null]));
}

/**
 * What the worker logs (at warn, with `actor`, `messageId`, `code` and `error`) for each message
 * rejected for good. An earlier Baton rejected a state past the record limit so: BatonApp counts
 * those lines with `code` STATE_TOO_LARGE too, while a deploy rolls (StateTooLargeAlarm).
 */
export const REJECTED_LOG = 'message rejected';

/** A terminal rejection: the state stays, the message counts as processed, an asker is told. */
export async function reject(
  turn: Turn,
  current: ActorRecord,
  inbound: Inbound,
  admission: Admission,
  error: BatonError,
  trace: HandlingTrace | undefined,
): Promise<MessageEffects> {
  const { engine } = turn;
  engine.logger.warn(REJECTED_LOG, {
    actor: current.id,
    messageId: inbound.envelope.id,
    code: error.code,
    error: error.message,
  });
  const failed = { ok: false, error: error.toJSON() } as const;
  const out = await outgoing(
    turn,
    advance(engine, current, inbound, admission),
    askReply(engine, inbound.envelope, failed),
    trace,
  );
  return {
    ...withRecord(engine, out.record),
    envelopes: out.envelopes,
    idempotency: failedOutcome(engine, inbound.envelope, error),
    failure: error,
    ...admissionEffects(engine, admission),
  };
}

/**
 * A message with nothing left to do: the reply to an ask whose continuation ran already (on a
 * timeout), a void timer's fire, the redrive of a cancelled timer's fire. It only moves the
 * inbox offset and its channel on, and removes the void timer and the forgotten dead letter.
 */
export function ignore(
  engine: TurnEngine,
  current: ActorRecord,
  inbound: Inbound,
  admission: Admission,
): MessageEffects {
  if (admission.forgets) {
    engine.logger.info(
      'redrive applies nothing: the timer of this fire was cancelled, scheduled anew or voided by a halt since',
      {
        actor: current.id,
        messageId: admission.forgets.messageId,
        timer: admission.forgets.timer?.id,
      },
    );
  }
  return {
    ...withRecord(engine, advance(engine, current, inbound, admission)),
    envelopes: [],
    idempotency: undefined,
    ...(admission.voids && { timers: firedTimer(admission.voids) }),
    ...(admission.forgets && { redriven: admission.forgets.messageId }),
  };
}

/**
 * What applying or rejecting a message ends besides the message: a redriven one leaves the
 * dead letters and replaces its outcome; a timer's fire removes the timer.
 */
function admissionEffects(engine: TurnEngine, admission: Admission): Partial<MessageEffects> {
  const { redrives } = admission;
  return {
    ...(redrives && { redriven: redrives.messageId, replacesOutcome: true }),
    // A message no mark tells a copy of: its letter stays, as the proof.
    ...(redrives &&
      (redrives.envelope.lifeEnded || redrives.unmarked) && {
        deadLetter: appliedProof(engine, redrives),
      }),
    ...(admission.fires && { timers: firedTimer(admission.fires) }),
  };
}

const firedTimer = (timer: Timer) => new Map([[timer.id, null]]);
