/**
 * What one message does to its actor's record in a turn: the handler run on a draft, or a
 * rejection, or a dead letter — each as the `MessageEffects` a commit is built from, with the
 * inbox offset and the sender's mark moved past the message.
 */
import { jsonSize } from '../adapter/conflicts.ts';
import { actorMessageId, type Envelope, isActorSender } from '../adapter/envelope.ts';
import type { ActorRecord, DeadLetter, SenderMark } from '../adapter/ports.ts';
import { handlingTrace } from '../adapter/traceContext.ts';
import { type BatonError, toBatonError } from '../errors.ts';
import { upgradeState } from '../stateVersions.ts';
import { type MessageEffects, pruneMarks } from './CommitBuilder.ts';
import { type Arrival, markAfter, pruneChannels } from './channels.ts';
import type { Engine } from './createEngine.ts';
import { createHandlerContext } from './createHandlerContext.ts';
import type { Inbound } from './Inbound.ts';
import { failedOutcome, idempotencyFor } from './outcomes.ts';
import { boundPeers, type OverflowLookup } from './overflow.ts';
import { deadLettered, replyTooLarge, stateNotJson, stateTooLarge } from './turnErrors.ts';

/** Why a message is applied: where it stands on its channel, or the dead letter it redrives. */
export interface Admission {
  readonly arrival?: Arrival;
  /** The receiver's mark for the sender that `arrival` was classified against. */
  readonly mark?: SenderMark;
  readonly redrives?: DeadLetter;
}

/** What a message's effects are computed with besides the record. */
export interface Turn {
  readonly engine: Engine;
  readonly overflow: OverflowLookup;
}

/** Runs the handler on a draft; returns its effects, a rejection, or the error that stops the batch. */
export async function applyMessage(
  { engine, overflow }: Turn,
  current: ActorRecord,
  inbound: Inbound,
  admission: Admission,
): Promise<MessageEffects | BatonError> {
  const { envelope } = inbound;
  // The trace of handling this message: its logs carry it, and so do the messages it sends.
  const trace = handlingTrace(envelope.traceparent, envelope.id);
  let reply: unknown;
  let effects: ReturnType<typeof createHandlerContext>;
  let stateVersion: number;
  try {
    const message = engine.registry.resolve(envelope.to, envelope.name, envelope.payload);
    stateVersion = message.definition.version;
    // A state written by an earlier version of the definition is migrated first.
    const draft = upgradeState(
      message.definition,
      structuredClone(current.state),
      current.stateVersion ?? 1,
      current.id,
    );
    effects = createHandlerContext(engine, current.id, draft, envelope, {
      inboxPosition: inbound.queueSeq,
      trace,
    });
    const returned = await message.handler.handle(effects.ctx, message.payload);
    reply = effects.reply.set ? effects.reply.value : returned;
  } catch (thrown) {
    const error = toBatonError(thrown);
    if (!error.terminal) {
      engine.logger.warn('message will be retried', {
        actor: current.id,
        messageId: envelope.id,
        attempt: inbound.receiveCount ?? 1,
        error: error.message,
      });
      return error;
    }
    return reject(engine, current, inbound, admission, error);
  }

  // State and reply as JSON: what a warm worker keeps is exactly what a reload returns.
  let state: unknown;
  try {
    state = asJson(effects.ctx.state);
    reply = asJson(reply);
  } catch (error) {
    return reject(engine, current, inbound, admission, stateNotJson(current.id, error));
  }
  const now = engine.clock.now();
  const advanced = advance(engine, current, inbound, admission);
  const targets = effects.sends.map(({ to }) => ({ kind: 'channel', peer: to }) as const);
  await overflow.load(advanced, targets);
  const channels = { ...advanced.channels };
  let sentSeq = current.sentSeq;
  const envelopes: Envelope[] = [];
  for (const { to, name, payload } of effects.sends) {
    sentSeq++;
    const prev = (channels[to] ?? (await overflow.channel(advanced, to)))?.seq ?? 0;
    channels[to] = { seq: sentSeq, at: now };
    const id = actorMessageId(current.id, sentSeq);
    envelopes.push({
      id,
      from: current.id,
      seq: sentSeq,
      prev,
      to,
      name,
      payload,
      sentAt: now,
      ...(trace ? { traceparent: trace.child } : {}),
    });
  }
  const bounded = withRecord(engine, { ...advanced, state, stateVersion, sentSeq, channels });
  if (bounded.recordBytes > engine.store.limits.maxItemBytes) {
    return reject(
      engine,
      current,
      inbound,
      admission,
      stateTooLarge(current.id, engine.store.limits),
    );
  }
  const idempotency = idempotencyFor(engine, envelope, { ok: true, value: reply });
  // A reply too large to store would fail every commit of the batch and block the actor.
  if (idempotency && jsonSize(idempotency) > engine.store.limits.maxItemBytes) {
    return reject(
      engine,
      current,
      inbound,
      admission,
      replyTooLarge(envelope, engine.store.limits),
    );
  }
  return {
    ...bounded,
    envelopes,
    idempotency,
    ...redriveEffects(admission),
  };
}

/** A terminal rejection: the state stays, the message counts as processed, an asker is told. */
export function reject(
  engine: Engine,
  current: ActorRecord,
  inbound: Inbound,
  admission: Admission,
  error: BatonError,
): MessageEffects {
  engine.logger.warn('message rejected', {
    actor: current.id,
    messageId: inbound.envelope.id,
    code: error.code,
    error: error.message,
  });
  return {
    ...withRecord(engine, advance(engine, current, inbound, admission)),
    envelopes: [],
    idempotency: failedOutcome(engine, inbound.envelope, error),
    ...redriveEffects(admission),
  };
}

/**
 * Ends a message that kept failing (DEAD_LETTERED) in the actor's own turn: the state stays, the
 * actor goes on with its next message, an asker is told, and the message is kept to redrive.
 */
export function deadLetter(
  engine: Engine,
  current: ActorRecord,
  inbound: Inbound,
  admission: Admission,
  last: BatonError,
): MessageEffects {
  const { envelope } = inbound;
  const attempts = inbound.receiveCount ?? 1;
  const error = deadLettered(envelope, attempts, last);
  engine.logger.error('message dead-lettered after repeated failures', {
    actor: current.id,
    messageId: envelope.id,
    attempts,
    error: last.message,
  });
  const { redrive: _, ...original } = envelope;
  const kept: DeadLetter = {
    actorId: current.id,
    messageId: envelope.id,
    envelope: original,
    redrivable: true,
    error: error.toJSON(),
    attempts,
    at: engine.clock.now(),
  };
  // A dead letter too large for a record keeps everything but the payload.
  const fits = jsonSize(kept) <= engine.store.limits.maxItemBytes;
  return {
    ...withRecord(engine, advance(engine, current, inbound, admission)),
    envelopes: [],
    idempotency: failedOutcome(engine, envelope, error),
    deadLetter: fits
      ? kept
      : { ...kept, envelope: { ...original, payload: null }, redrivable: false },
    ...(admission.redrives ? { replacesOutcome: true } : {}),
  };
}

/** A redriven message, once applied or rejected, leaves the dead letters and replaces its outcome. */
function redriveEffects(admission: Admission): Partial<MessageEffects> {
  return admission.redrives
    ? { redriven: admission.redrives.messageId, replacesOutcome: true }
    : {};
}

/** The record with the inbox offset and the sender's mark moved past `inbound`. */
function advance(
  engine: Engine,
  current: ActorRecord,
  inbound: Inbound,
  admission: Admission,
): ActorRecord {
  const { envelope } = inbound;
  const now = engine.clock.now();
  const marks = pruneMarks(current.marks, now - engine.markRetentionMs);
  const { arrival, mark } = admission;
  if (arrival && isActorSender(envelope)) {
    if (arrival.kind === 'gap') {
      engine.logger.error('gap on a channel: messages from the sender never arrived in order', {
        actor: current.id,
        from: envelope.from,
        messageId: envelope.id,
        missingAfter: arrival.missing[0],
        missingUpTo: arrival.missing[1],
      });
    } else if (arrival.kind === 'late') {
      engine.logger.warn('applying a message that was missing from its channel', {
        actor: current.id,
        messageId: envelope.id,
      });
    }
    marks[envelope.from] = markAfter(mark, envelope, arrival, now);
  }
  // Channels are forgotten well before the receivers' marks (half the retention), so a message
  // that opens a channel anew can never meet a receiver that still expects the old one.
  const channels = pruneChannels(current.channels, now - engine.markRetentionMs / 2);
  const queue = inbound.queue === undefined ? {} : { inboxQueue: inbound.queue };
  return { ...current, inboxOffset: inbound.queueSeq, ...queue, marks, channels };
}

/**
 * The record part of a message's effects: `unbounded` with the marks of its least recent peers
 * moved out (see overflow.ts), its size, and what moved. `moves` caps the moves the count
 * limit asks for.
 */
function withRecord(engine: Engine, unbounded: ActorRecord, moves?: number) {
  const { record, moved, bytes } = boundPeers(unbounded, {
    now: engine.clock.now(),
    retentionMs: engine.markRetentionMs,
    maxItemBytes: engine.store.limits.maxItemBytes,
    recordPeers: engine.recordPeers,
    ...(moves === undefined ? {} : { moves }),
  });
  return { record, recordBytes: bytes, unbounded, overflow: moved };
}

/**
 * `effects` with only the moves the item limit forces, for a message too large for a commit
 * with them: the record lists more peers than it should until a later message moves them.
 */
export function withFewerMoves(engine: Engine, effects: MessageEffects): MessageEffects {
  if (!effects.unbounded || !effects.overflow?.length) return effects;
  return { ...effects, ...withRecord(engine, effects.unbounded, 0) };
}

/** A value as it reads back from storage: through JSON (throws on a BigInt or a cycle). */
function asJson(value: unknown): unknown {
  const text = JSON.stringify(value);
  return text === undefined ? undefined : JSON.parse(text);
}
