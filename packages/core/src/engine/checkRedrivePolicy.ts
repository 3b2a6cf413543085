import type { RedrivePolicy } from '../adapter/ports.ts';
import { invalidArgument } from '../errors.ts';
import type { TurnEngine } from './createEngine.ts';

/**
 * Throws INVALID_ARGUMENT when the inbox queue dead-letters a message itself (its redrive
 * policy's `maxReceives`) at or before the engine's `maxAttempts`: the queue's dead-letter queue
 * would take a message whose handler keeps failing — and the messages behind it in its group —
 * before the engine ends it in the actor's turn and keeps it to redrive. The queue's limit is the
 * backstop for failures outside handlers, so it must leave the engine at least one receive more.
 * Returns the policy, for turns to end a failing message at its last receive (see `attempts.ts`).
 *
 * @example
 * await checkRedrivePolicy(engine); // before each of a worker's batches
 */
export async function checkRedrivePolicy(engine: TurnEngine): Promise<RedrivePolicy | undefined> {
  const policy = await engine.queue.redrivePolicy?.();
  if (!policy || policy.maxReceives > engine.maxAttempts) return policy;
  const { maxReceives } = policy;
  const { maxAttempts } = engine;
  throw invalidArgument(
    `the inbox queue dead-letters a message after ${maxReceives} receives, before the engine's maxAttempts = ${maxAttempts} deliveries end it: set the queue's maxReceives (BatonApp: maxReceiveCount) to ${maxAttempts + 2} or more, or the worker's maxAttempts below ${maxReceives}`,
    { maxReceives, maxAttempts },
  );
}
