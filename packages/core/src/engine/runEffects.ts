/**
 * Running effects: the inbox messages of one effect group (one effect, one asking actor) run in
 * order, at least once. A run that throws stops the group: it and the messages after it come
 * back (with backoff) until it succeeds or the queue's dead-letter queue takes it. The
 * idempotency key of a run is its envelope id, `<actor id>:<life>.<seq>`, the same on every
 * attempt and never used by another effect, in any life of the actor; an engine's
 * `effectKeyNamespace` goes before it.
 */
import { decodeEnvelope, effectOf } from '../adapter/envelope.ts';
import type { ReceivedMessage } from '../adapter/ports.ts';
import { type BatonError, toBatonError } from '../errors.ts';
import type { Engine } from './createEngine.ts';

export async function runEffects(
  engine: Engine,
  messages: readonly ReceivedMessage[],
): Promise<{ done: number; retry?: BatonError }> {
  let done = 0;
  for (const message of messages) {
    const envelope = decodeEnvelope(message.body);
    const name = envelope && effectOf(envelope.to);
    try {
      if (!envelope || name === undefined) throw new Error('not a Baton effect envelope');
      const effect = engine.registry.effect(name);
      const payload = engine.registry.effectPayload(name, envelope.payload);
      await effect.run(payload as never, {
        idempotencyKey: effectKey(engine, envelope.id),
        actor: envelope.from,
        attempt: message.receiveCount,
      });
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

/** The idempotency key of an effect's runs: its message id, in the engine's namespace if any. */
function effectKey(engine: Engine, messageId: string): string {
  const namespace = engine.effectKeyNamespace;
  return namespace === undefined ? messageId : `${namespace}:${messageId}`;
}
