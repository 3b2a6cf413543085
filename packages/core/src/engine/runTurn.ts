import { jsonSize, readConflict } from '../adapter/conflicts.ts';
import { actorMessageId, type Envelope, isActorSender } from '../adapter/envelope.ts';
import {
  type ActorRecord,
  compareSeq,
  type DeadLetter,
  type OutboxItem,
  type SenderMark,
} from '../adapter/ports.ts';
import { type BatonError, isBatonError, toBatonError } from '../errors.ts';
import { CommitBuilder, type MessageEffects, pruneMarks } from './CommitBuilder.ts';
import { type Arrival, classify, markAfter, pruneChannels } from './channels.ts';
import type { Engine } from './createEngine.ts';
import { createHandlerContext } from './createHandlerContext.ts';
import { isReplacedQueue, reportReplacedQueue } from './inboxQueue.ts';
import { failedOutcome, idempotencyFor } from './outcomes.ts';
import { boundPeers, OverflowLookup } from './overflow.ts';
import {
  commitTooLarge,
  deadLettered,
  replyTooLarge,
  stateNotJson,
  stateTooLarge,
} from './turnErrors.ts';

/** One inbox message as the engine sees it. */
export interface Inbound {
  readonly envelope: Envelope;
  /** The queue's sequence number: compared with the record's inbox offset. */
  readonly queueSeq: string;
  /** Deliveries of this message so far (the queue's receive count). @default 1 */
  readonly receiveCount?: number;
  /** The identity of the queue it came from (`Queue.identity`), when the queue has one. */
  readonly queue?: string;
}

export interface TurnResult {
  /** Messages finished with: applied, rejected or skipped as duplicates. Ack them after drain. */
  readonly done: number;
  /** How many messages the commits put in the outbox (0: nothing to drain from this turn). */
  readonly sent: number;
  /** The outbox items the commits wrote, in order: what a drain of this turn sends. */
  readonly outbox: readonly OutboxItem[];
  /** The actor's `sentSeq` before the turn's first commit, and after its last. */
  readonly sentSeq: { readonly before: number; readonly after: number };
  /** Whether a message was a duplicate: an earlier turn may have left its outbox undrained. */
  readonly sawDuplicate: boolean;
  /** Set when a retryable error stopped the batch at message `done`. */
  readonly retry?: BatonError;
}

/** Redo limit for version conflicts: each redo means another worker made progress. */
const MAX_ATTEMPTS = 16;

/**
 * Runs one turn: applies a batch of one actor's inbox messages and commits the new record with
 * its outbox and idempotency records (DESIGN steps 1–4). Does not drain or ack.
 */
export async function runTurn(
  engine: Engine,
  actorId: string,
  batch: readonly Inbound[],
): Promise<TurnResult> {
  const duplicateKeys = new Set<string>();
  for (let attempt = 1; ; attempt++) {
    const base = engine.cache.get(actorId) ?? (await load(engine, actorId));
    if (attempt === 1) reportReplacedQueue(engine, base, batch);
    try {
      return await applyBatch(engine, base, batch, duplicateKeys);
    } catch (error) {
      const conflict = readConflict(error);
      if (!conflict || attempt >= MAX_ATTEMPTS) {
        engine.cache.delete(actorId);
        throw error;
      }
      if (conflict.kind === 'version') {
        engine.cache.delete(actorId);
        if (conflict.current) engine.cache.set(conflict.current);
      } else {
        for (const key of conflict.keys) duplicateKeys.add(key);
      }
      engine.logger.debug('turn redone after a conflict', { actor: actorId, kind: conflict.kind });
    }
  }
}

async function load(engine: Engine, actorId: string): Promise<ActorRecord> {
  return (
    (await engine.store.load(actorId)) ?? {
      id: actorId,
      ver: 0,
      state: initialState(engine, actorId),
      inboxOffset: '0',
      marks: {},
      sentSeq: 0,
    }
  );
}

function initialState(engine: Engine, actorId: string): unknown {
  const slash = actorId.indexOf('/');
  const definition = engine.registry.definition(actorId.slice(0, slash));
  return definition.initial(actorId.slice(slash + 1));
}

/** Why a message is applied: where it stands on its channel, or the dead letter it redrives. */
interface Admission {
  readonly arrival?: Arrival;
  /** The receiver's mark for the sender that `arrival` was classified against. */
  readonly mark?: SenderMark;
  readonly redrives?: DeadLetter;
}

/** What a message's effects are computed with besides the record. */
interface Turn {
  readonly engine: Engine;
  readonly overflow: OverflowLookup;
}

async function applyBatch(
  engine: Engine,
  base: ActorRecord,
  batch: readonly Inbound[],
  duplicateKeys: ReadonlySet<string>,
): Promise<TurnResult> {
  const builder = new CommitBuilder(base, engine.store.limits);
  const overflow = new OverflowLookup(
    engine.store,
    base,
    engine.clock.now(),
    engine.markRetentionMs,
  );
  const turn: Turn = { engine, overflow };
  // The batch's senders the record does not list, read in one call rather than one each.
  const senders = batch.map(({ envelope }) => envelope).filter(isActorSender);
  await overflow.load(
    base,
    senders.map(({ from }) => ({ kind: 'sender', peer: from })),
  );
  let committed = base;
  let done = 0;
  let sent = 0;
  const outbox: OutboxItem[] = [];
  let sawDuplicate = false;
  let retry: BatonError | undefined;

  const commit = async () => {
    const pending = builder.take(base.id, engine.clock.now());
    const record = { ...builder.record, ver: committed.ver + 1 };
    await engine.store.commit({ expectedVer: committed.ver, record, ...pending });
    committed = record;
    builder.reset(record);
    engine.cache.set(record);
    for (const item of pending.outbox) sent += item.envelopes.length;
    outbox.push(...pending.outbox);
  };

  const seenKeys = new Set<string>();
  for (const inbound of batch) {
    // A queue may hand over two copies of an ingress message or of a redrive (SQS is
    // at-least-once); neither has a channel mark, so a second copy is known by its id.
    const { envelope } = inbound;
    const byId = !isActorSender(envelope) || envelope.redrive !== undefined;
    const copy = byId && seenKeys.has(envelope.id);
    const admission = copy ? undefined : await admit(turn, builder, inbound, duplicateKeys);
    if (!admission) {
      sawDuplicate = true;
      done++;
      continue;
    }
    if (byId) seenKeys.add(envelope.id);
    let effects = await applyMessage(turn, builder.record, inbound, admission);
    if (isBatonError(effects)) {
      if ((inbound.receiveCount ?? 1) < engine.maxAttempts) {
        retry = effects;
        break;
      }
      effects = deadLetter(engine, builder.record, inbound, admission, effects);
    }
    if (!builder.fits(effects)) {
      if (builder.size > 0) await commit();
      if (!builder.fits(effects)) effects = withFewerMoves(engine, effects);
      if (!builder.fits(effects)) {
        const error = commitTooLarge(inbound.envelope, engine.store.limits);
        effects = withFewerMoves(engine, reject(engine, builder.record, inbound, admission, error));
      }
    }
    builder.add(effects);
    overflow.moved(effects.overflow ?? []);
    done++;
  }
  if (builder.size > 0) await commit();
  const sentSeq = { before: base.sentSeq, after: committed.sentSeq };
  return { done, sent, outbox, sentSeq, sawDuplicate, ...(retry ? { retry } : {}) };
}

/**
 * Decides whether a message is applied, or skipped as one applied already (by inbox offset,
 * per-channel mark, idempotency key, or a redrive whose dead letter is gone).
 */
async function admit(
  { engine, overflow }: Turn,
  builder: CommitBuilder,
  inbound: Inbound,
  duplicateKeys: ReadonlySet<string>,
): Promise<Admission | undefined> {
  const { envelope } = inbound;
  const record = builder.record;
  const offset = isReplacedQueue(record, inbound) ? '0' : record.inboxOffset;
  if (compareSeq(inbound.queueSeq, offset) <= 0) return undefined;
  if (envelope.redrive !== undefined) {
    const kept = await engine.store.readDeadLetter(record.id, envelope.id);
    return kept?.at === envelope.redrive ? { redrives: kept } : undefined;
  }
  if (isActorSender(envelope)) {
    const mark = await overflow.sender(record, envelope.from);
    const arrival = classify(mark, envelope);
    return arrival.kind === 'duplicate' ? undefined : { arrival, ...(mark ? { mark } : {}) };
  }
  return duplicateKeys.has(envelope.id) ? undefined : {};
}

/** Runs the handler on a draft; returns its effects, a rejection, or the error that stops the batch. */
async function applyMessage(
  { engine, overflow }: Turn,
  current: ActorRecord,
  inbound: Inbound,
  admission: Admission,
): Promise<MessageEffects | BatonError> {
  const { envelope } = inbound;
  let reply: unknown;
  let effects: ReturnType<typeof createHandlerContext>;
  try {
    const message = engine.registry.resolve(envelope.to, envelope.name, envelope.payload);
    effects = createHandlerContext(engine, current.id, structuredClone(current.state), envelope);
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
    envelopes.push({ id, from: current.id, seq: sentSeq, prev, to, name, payload, sentAt: now });
  }
  const bounded = withRecord(engine, { ...advanced, state, sentSeq, channels });
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
function reject(
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
function deadLetter(
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
function withFewerMoves(engine: Engine, effects: MessageEffects): MessageEffects {
  if (!effects.unbounded || !effects.overflow?.length) return effects;
  return { ...effects, ...withRecord(engine, effects.unbounded, 0) };
}

/** A value as it reads back from storage: through JSON (throws on a BigInt or a cycle). */
function asJson(value: unknown): unknown {
  const text = JSON.stringify(value);
  return text === undefined ? undefined : JSON.parse(text);
}
