/**
 * Running effects: the inbox messages of one effect group (one effect, one asking actor) run in
 * order, at least once. A run that throws stops the group: it and the messages after it come
 * back (with backoff) until it succeeds or the queue's dead-letter queue takes it. The
 * idempotency key of a run is its envelope id, `<actor id>:<life>.<seq>`, the same on every
 * attempt and never used by another effect, in any life of the actor; an engine's
 * `effectKeyNamespace` goes before it.
 *
 * A run that succeeded leaves a done-mark in the store (`markEffectsDone`), kept as long as
 * receivers keep their marks of messages. A copy of its request arriving later — a held send
 * that a sweep re-sends after the queue's dedupe window, or a redelivery after the run — finds
 * the mark and is skipped. Only a crash between the run and its mark runs it again.
 */
import {
  decodeEnvelope,
  effectOf,
  isNewerEnvelope,
  NEWER_ENVELOPE_LOG,
} from '../adapter/envelope.ts';
import type { ReceivedMessage } from '../adapter/ports.ts';
import { type BatonError, toBatonError } from '../errors.ts';
import type { TurnEngine } from './createEngine.ts';

export async function runEffects(
  engine: TurnEngine,
  messages: readonly ReceivedMessage[],
): Promise<{ done: number; retry?: BatonError }> {
  const envelopes = messages.map((message) => decodeEnvelope(message.body));
  const keys = envelopes.flatMap((envelope) => (envelope ? [effectKey(engine, envelope.id)] : []));
  let ran: ReadonlySet<string>;
  try {
    ran = (await engine.store.readEffectsDone?.(keys)) ?? new Set();
  } catch (error) {
    return { done: 0, retry: toBatonError(error) };
  }
  const marks: string[] = [];
  try {
    return await runGroup(engine, messages, ran, marks);
  } finally {
    await markDone(engine, marks);
  }
}

async function runGroup(
  engine: TurnEngine,
  messages: readonly ReceivedMessage[],
  ran: ReadonlySet<string>,
  marks: string[],
): Promise<{ done: number; retry?: BatonError }> {
  let done = 0;
  for (const message of messages) {
    const envelope = decodeEnvelope(message.body);
    const name = envelope && effectOf(envelope.to);
    try {
      if (!envelope || name === undefined) throw new Error('not a Baton effect envelope');
      if (isNewerEnvelope(envelope)) throw new Error(NEWER_ENVELOPE_LOG);
      const idempotencyKey = effectKey(engine, envelope.id);
      if (ran.has(idempotencyKey)) {
        engine.logger.debug('effect already ran; a late copy of its request is skipped', {
          effect: name,
          messageId: envelope.id,
        });
        done++;
        continue;
      }
      const effect = engine.registry.effect(name);
      const payload = engine.registry.effectPayload(name, envelope.payload);
      await effect.run(payload as never, {
        idempotencyKey,
        actor: envelope.from,
        attempt: message.receiveCount,
      });
      marks.push(idempotencyKey);
      done++;
    } catch (thrown) {
      const error = toBatonError(thrown);
      engine.logger.warn('effect failed; it will be retried until the queue dead-letters it', {
        effect: name,
        messageId: envelope?.id,
        actor: envelope?.from,
        attempt: message.receiveCount,
        error: error.message,
      });
      // Retryable whatever it threw: an effect is retried until it succeeds or is dead-lettered.
      return { done, retry: error.terminal ? toBatonError(new Error(error.message)) : error };
    }
  }
  return { done };
}

/**
 * Marks the runs done. A failed write is logged, not thrown: the effects ran, and their
 * messages are acked; only a late copy of one of them would run it again.
 */
async function markDone(engine: TurnEngine, keys: readonly string[]): Promise<void> {
  if (keys.length === 0 || !engine.store.markEffectsDone) return;
  const expiresAt = engine.clock.now() + engine.markRetentionMs;
  try {
    await engine.store.markEffectsDone(keys, expiresAt);
  } catch (error) {
    engine.logger.warn(
      'could not mark effects done; a late copy of their request would run them again',
      {
        keys: keys.length,
        error: toBatonError(error).message,
      },
    );
  }
}

/** The idempotency key of an effect's runs: its message id, in the engine's namespace if any. */
function effectKey(engine: TurnEngine, messageId: string): string {
  const namespace = engine.effectKeyNamespace;
  return namespace === undefined ? messageId : `${namespace}:${messageId}`;
}
