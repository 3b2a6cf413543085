import { jsonSize, readConflict } from '../conflicts.ts';
import { type Envelope, isActorSender } from '../envelope.ts';
import {
  BatonError,
  ErrorCode,
  isBatonError,
  type SerializedError,
  toBatonError,
} from '../errors.ts';
import { type ActorRecord, compareSeq, type IdempotencyRecord, type Outcome } from '../ports.ts';
import { CommitBuilder, type MessageEffects, pruneMarks } from './CommitBuilder.ts';
import { createHandlerContext } from './createHandlerContext.ts';
import type { Engine } from './EngineConfig.ts';

/** One inbox message as the engine sees it. */
export interface Inbound {
  readonly envelope: Envelope;
  /** The queue's sequence number: compared with the record's inbox offset. */
  readonly queueSeq: string;
}

export interface TurnResult {
  /** Messages finished with: applied, rejected or skipped as duplicates. Ack them after drain. */
  readonly done: number;
  /** How many messages the commits put in the outbox (0: nothing to drain from this turn). */
  readonly sent: number;
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

async function applyBatch(
  engine: Engine,
  base: ActorRecord,
  batch: readonly Inbound[],
  duplicateKeys: ReadonlySet<string>,
): Promise<TurnResult> {
  const builder = new CommitBuilder(base, engine.store.limits);
  let committed = base;
  let done = 0;
  let sent = 0;
  let sawDuplicate = false;
  let retry: BatonError | undefined;

  const commit = async () => {
    const { outbox, idempotency } = builder.take(base.id, engine.clock.now());
    const record = { ...builder.record, ver: committed.ver + 1 };
    await engine.store.commit({ expectedVer: committed.ver, record, outbox, idempotency });
    committed = record;
    builder.reset(record);
    engine.cache.set(record);
    for (const item of outbox) sent += item.envelopes.length;
  };

  const seenKeys = new Set<string>();
  for (const inbound of batch) {
    // A queue may hand over two copies of one ingress message (SQS is at-least-once).
    const copy = !isActorSender(inbound.envelope) && seenKeys.has(inbound.envelope.id);
    if (copy || isDuplicate(builder.record, inbound, duplicateKeys)) {
      sawDuplicate = true;
      done++;
      continue;
    }
    if (!isActorSender(inbound.envelope)) seenKeys.add(inbound.envelope.id);
    const effects = await applyMessage(engine, builder, inbound);
    if (isBatonError(effects)) {
      retry = effects;
      break;
    }
    if (!builder.fits(effects)) {
      if (builder.size > 0) await commit();
      if (!builder.fits(effects)) {
        builder.add(reject(engine, builder.record, inbound, tooLarge(engine, inbound)));
        done++;
        continue;
      }
    }
    builder.add(effects);
    done++;
  }
  if (builder.size > 0) await commit();
  return { done, sent, sawDuplicate, ...(retry ? { retry } : {}) };
}

function isDuplicate(record: ActorRecord, inbound: Inbound, duplicateKeys: ReadonlySet<string>) {
  const { envelope } = inbound;
  if (compareSeq(inbound.queueSeq, record.inboxOffset) <= 0) return true;
  if (isActorSender(envelope)) return envelope.seq <= (record.marks[envelope.from]?.seq ?? 0);
  return duplicateKeys.has(envelope.id);
}

/** Runs the handler on a draft; returns its effects, a rejection, or the error that stops the batch. */
async function applyMessage(
  engine: Engine,
  builder: CommitBuilder,
  inbound: Inbound,
): Promise<MessageEffects | BatonError> {
  const current = builder.record;
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
        error: error.message,
      });
      return error;
    }
    return reject(engine, current, inbound, error);
  }

  const now = engine.clock.now();
  let sentSeq = current.sentSeq;
  const envelopes = effects.sends.map(({ to, name, payload }): Envelope => {
    sentSeq++;
    return {
      id: `${current.id}:${sentSeq}`,
      from: current.id,
      seq: sentSeq,
      to,
      name,
      payload,
      sentAt: now,
    };
  });
  const record: ActorRecord = {
    ...advance(engine, current, inbound),
    state: effects.ctx.state,
    sentSeq,
  };
  if (!builder.recordFits(record)) {
    return reject(engine, current, inbound, stateTooLarge(engine, record));
  }
  const idempotency = idempotencyFor(engine, inbound, { ok: true, value: reply });
  // A reply too large to store would fail every commit of the batch and block the actor.
  if (idempotency && jsonSize(idempotency) > engine.store.limits.maxItemBytes) {
    return reject(engine, current, inbound, replyTooLarge(engine, inbound));
  }
  return { record, envelopes, idempotency };
}

/** A terminal rejection: the state stays, the message counts as processed, an asker is told. */
function reject(
  engine: Engine,
  current: ActorRecord,
  inbound: Inbound,
  error: BatonError,
): MessageEffects {
  engine.logger.warn('message rejected', {
    actor: current.id,
    messageId: inbound.envelope.id,
    code: error.code,
    error: error.message,
  });
  let idempotency = idempotencyFor(engine, inbound, { ok: false, error: error.toJSON() });
  // Error details too large to store would fail every commit of the batch: keep the gist.
  if (idempotency && jsonSize(idempotency) > engine.store.limits.maxItemBytes) {
    const gist: SerializedError = {
      code: error.code,
      message: error.message.slice(0, 1000),
      details: { truncated: true },
    };
    idempotency = { ...idempotency, outcome: { ok: false, error: gist } };
  }
  return { record: advance(engine, current, inbound), envelopes: [], idempotency };
}

/** The record with the inbox offset and the sender's mark moved past `inbound`. */
function advance(engine: Engine, current: ActorRecord, inbound: Inbound): ActorRecord {
  const { envelope } = inbound;
  const now = engine.clock.now();
  const marks = pruneMarks(current.marks, now - engine.markRetentionMs);
  if (isActorSender(envelope)) marks[envelope.from] = { seq: envelope.seq, at: now };
  return { ...current, inboxOffset: inbound.queueSeq, marks };
}

function idempotencyFor(
  engine: Engine,
  inbound: Inbound,
  outcome: Outcome,
): IdempotencyRecord | undefined {
  const { envelope } = inbound;
  if (isActorSender(envelope)) return undefined;
  return {
    key: envelope.id,
    actorId: envelope.to,
    outcome,
    expiresAt: engine.clock.now() + engine.idempotencyRetentionMs,
  };
}

function stateTooLarge(engine: Engine, record: ActorRecord): BatonError {
  const limit = engine.store.limits.maxItemBytes;
  return new BatonError(
    ErrorCode.STATE_TOO_LARGE,
    `the state of ${record.id} would grow past the backend's ${limit}-byte record limit; the message was rejected and the state is unchanged: keep large data elsewhere or split the actor`,
    { details: { actorId: record.id, limit } },
  );
}

function replyTooLarge(engine: Engine, inbound: Inbound): BatonError {
  const limit = engine.store.limits.maxItemBytes;
  return new BatonError(
    ErrorCode.MESSAGE_TOO_LARGE,
    `the reply to ${inbound.envelope.id} is larger than the backend's ${limit}-byte record limit; the message was rejected and the state is unchanged: reply with less and keep large data elsewhere`,
    { details: { message: inbound.envelope.id, limit } },
  );
}

function tooLarge(engine: Engine, inbound: Inbound): BatonError {
  const limits = engine.store.limits;
  return new BatonError(
    ErrorCode.MESSAGE_TOO_LARGE,
    `message ${inbound.envelope.id} produces more than one commit can hold (${limits.maxTransactionItems} items, ${limits.maxTransactionBytes} bytes): send fewer or smaller messages per handler`,
    { details: { message: inbound.envelope.id, ...limits } },
  );
}
