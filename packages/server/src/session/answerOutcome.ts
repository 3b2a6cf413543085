import { answersMessage, type IdempotencyRecord, idempotencyKeyReused } from '@baton/core/adapter';
import { PROTOCOL_VERSION, type ServerMessage } from '@baton/protocol';
import type { WaitingRequest } from './SessionPorts.ts';

/**
 * The answer to a request that waited for its message's outcome, the same on every host:
 * IDEMPOTENCY_KEY_REUSED when the record is another message's (a request made with the key of
 * another message: the queue dropped it as a duplicate), the actor's `error` when it rejected
 * the message, an ask's `reply` with the handler's value — or `'visible'` for a visible send
 * that was applied: the host sends {@link visibleFrame} once the connection's subscriptions
 * that read the actor show the commit.
 *
 * @example
 * const answer = answerOutcome(record, request);
 * if (answer !== 'visible') reply(answer);
 */
export function answerOutcome(
  record: IdempotencyRecord,
  request: Pick<WaitingRequest, 'kind' | 'requestId' | 'to'> & {
    /** Unknown for a request recorded before names and fingerprints were (it is answered). */
    readonly name?: string | undefined;
    readonly fingerprint?: string | undefined;
  },
): ServerMessage | 'visible' {
  const { requestId } = request;
  if (!answersMessage(record, request.fingerprint)) {
    const error = idempotencyKeyReused({ id: record.key, to: request.to, name: request.name });
    return { v: PROTOCOL_VERSION, type: 'error', requestId, error: error.toJSON() };
  }
  const { outcome } = record;
  if (!outcome.ok) return { v: PROTOCOL_VERSION, type: 'error', requestId, error: outcome.error };
  if (request.kind === 'ask') {
    return { v: PROTOCOL_VERSION, type: 'reply', requestId, value: outcome.value };
  }
  return 'visible';
}

/**
 * The `visible` frame of a send whose commit the connection's subscriptions show.
 *
 * @example
 * reply(visibleFrame('r1', messageId));
 */
export function visibleFrame(requestId: string, messageId: string): ServerMessage {
  return { v: PROTOCOL_VERSION, type: 'visible', requestId, messageId };
}
