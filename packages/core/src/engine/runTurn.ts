import { readConflict } from '../adapter/conflicts.ts';
import { askTimerId, isActorSender } from '../adapter/envelope.ts';
import { type ActorRecord, compareSeq, type OutboxItem, type Timer } from '../adapter/ports.ts';
import type { HandlingTrace } from '../adapter/traceContext.ts';
import { type BatonError, isBatonError } from '../errors.ts';
import { CommitBuilder, type MessageEffects } from './CommitBuilder.ts';
import { classify } from './channels.ts';
import type { Engine } from './createEngine.ts';
import type { Inbound } from './Inbound.ts';
import { isReplacedQueue, reportReplacedQueue } from './inboxQueue.ts';
import {
  type Admission,
  applyMessage,
  deadLetter,
  ignore,
  reject,
  type Turn,
  withFewerMoves,
} from './messageEffects.ts';
import { OverflowLookup } from './overflow.ts';
import { startHandlingSpan } from './spans.ts';
import { commitTooLarge } from './turnErrors.ts';

export interface TurnResult {
  /** Messages finished with: applied, rejected or skipped as duplicates. Ack them after drain. */
  readonly done: number;
  /** How many messages the commits put in the outbox (0: nothing to drain from this turn). */
  readonly sent: number;
  /** The outbox items the commits wrote, in order: what a drain of this turn sends. */
  readonly outbox: readonly OutboxItem[];
  /** The timers the commits scheduled: what to arm. */
  readonly timers: readonly Timer[];
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
  const stored = await engine.store.load(actorId);
  if (stored) return stored;
  const slash = actorId.indexOf('/');
  const definition = engine.registry.definition(actorId.slice(0, slash));
  return {
    id: actorId,
    ver: 0,
    state: definition.initial(actorId.slice(slash + 1)),
    stateVersion: definition.version,
    inboxOffset: '0',
    marks: {},
    sentSeq: 0,
  };
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
  const turn: Turn = { engine, overflow, builder };
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
  const timers: Timer[] = [];
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
    timers.push(...(pending.timers?.put ?? []));
  };

  const seenKeys = new Set<string>();
  for (const received of batch) {
    // A queue may hand over two copies of an ingress message or of a redrive (SQS is
    // at-least-once); neither has a channel mark, so a second copy is known by its id.
    const { envelope } = received;
    const byId = !isActorSender(envelope) || envelope.redrive !== undefined;
    const copy = byId && seenKeys.has(envelope.id);
    const admission = copy ? undefined : await admit(turn, received, duplicateKeys);
    if (!admission) {
      sawDuplicate = true;
      done++;
      continue;
    }
    if (byId) seenKeys.add(envelope.id);
    const inbound = admission.fires ? fired(received, admission.fires) : received;
    let effects: MessageEffects | BatonError;
    let trace: HandlingTrace | undefined;
    if (admission.lateReply) {
      effects = ignore(engine, builder.record, inbound, admission);
    } else {
      ({ effects, trace } = await handle(turn, builder.record, inbound, admission));
    }
    if (isBatonError(effects)) {
      retry = effects;
      break;
    }
    if (!builder.fits(effects)) {
      if (builder.size > 0) await commit();
      if (!builder.fits(effects)) effects = withFewerMoves(engine, effects);
      if (!builder.fits(effects)) {
        const error = commitTooLarge(inbound.envelope, engine.store.limits);
        const rejected = await reject(turn, builder.record, inbound, admission, error, trace);
        effects = withFewerMoves(engine, rejected);
      }
    }
    builder.add(effects);
    overflow.moved(effects.overflow ?? []);
    done++;
  }
  if (builder.size > 0) await commit();
  const sentSeq = { before: base.sentSeq, after: committed.sentSeq };
  return { done, sent, outbox, timers, sentSeq, sawDuplicate, ...(retry ? { retry } : {}) };
}

/** Runs the handler — or dead-letters a message out of attempts — inside its handling's span. */
async function handle(
  turn: Turn,
  record: ActorRecord,
  inbound: Inbound,
  admission: Admission,
): Promise<{ effects: MessageEffects | BatonError; trace: HandlingTrace | undefined }> {
  const { engine } = turn;
  const span = startHandlingSpan(engine.openTelemetry, inbound.envelope, {
    actor: record.id,
    inboxPosition: inbound.queueSeq,
  });
  let effects: MessageEffects | BatonError;
  try {
    effects = await applyMessage(turn, record, inbound, admission, span.trace);
    if (isBatonError(effects) && (inbound.receiveCount ?? 1) >= engine.maxAttempts) {
      effects = await deadLetter(turn, record, inbound, admission, effects, span.trace);
    }
  } catch (error) {
    span.end({ code: 'UNEXPECTED', message: String(error) });
    throw error;
  }
  span.end(isBatonError(effects) ? effects : effects.failure);
  return { effects, trace: span.trace };
}

/**
 * Decides whether a message is applied, or skipped as one applied already (by inbox offset,
 * per-channel mark, idempotency key, a redrive whose dead letter is gone, or the fire of a timer
 * that fired, was cancelled or was scheduled anew).
 */
async function admit(
  { engine, overflow, builder }: Turn,
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
  if (envelope.timer) {
    const { id, gen } = envelope.timer;
    const timer = await storedTimer(engine, builder, record.id, id);
    return timer?.gen === gen ? { fires: timer } : undefined;
  }
  if (isActorSender(envelope)) {
    const mark = await overflow.sender(record, envelope.from);
    const arrival = classify(mark, envelope);
    if (arrival.kind === 'duplicate') return undefined;
    const onChannel = { arrival, ...(mark ? { mark } : {}) };
    if (envelope.replyTo === undefined) return onChannel;
    // A reply goes to the ask's continuation while its timeout timer is stored.
    const timer = await storedTimer(engine, builder, record.id, askTimerId(envelope.replyTo));
    return timer?.gen === envelope.replyTo
      ? { ...onChannel, fires: timer }
      : { ...onChannel, lateReply: true };
  }
  return duplicateKeys.has(envelope.id) ? undefined : {};
}

/** Timer `id` as the pending commit leaves it (an earlier message of the batch may have changed it). */
async function storedTimer(
  engine: Engine,
  builder: CommitBuilder,
  actorId: string,
  id: string,
): Promise<Timer | null | undefined> {
  const pending = builder.pendingTimer(id);
  return pending === undefined ? engine.store.readTimer(actorId, id) : pending;
}

/**
 * The message as the handler sees it. A timer's fire: the name, payload and trace the timer was
 * scheduled with. An ask's reply: the continuation's name, and the reply with the ask's context.
 */
function fired(inbound: Inbound, timer: Timer): Inbound {
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
