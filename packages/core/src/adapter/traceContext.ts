/**
 * W3C trace context (`traceparent`) carried in envelopes from ingress through every hop: each
 * message a handler sends names, as its parent, the span of the handling of the message that
 * caused it. Span ids are derived from message ids, so a retried or replayed turn logs and
 * propagates the same ids — deterministic, like everything else in a turn.
 */
import { parseTraceparent } from '../shared/traceparent.ts';
import { messageFingerprint } from './fingerprint.ts';

export { parseTraceparent };

/** The span id of the handling of message `messageId`: 16 hex digits, never all zero. */
export function spanIdOf(messageId: string): string {
  const id = messageFingerprint('span', messageId).slice(0, 16);
  return /^0+$/.test(id) ? '0000000000000001' : id;
}

/** The trace of handling one message, and the `traceparent` of the messages it sends. */
export interface HandlingTrace {
  readonly traceId: string;
  readonly spanId: string;
  readonly parentId: string;
  readonly child: string;
}

/**
 * The trace fields of handling a message that carries `traceparent`: its trace, its own span,
 * and the `traceparent` the messages it sends carry. `undefined` without a valid trace.
 *
 * @example
 * const trace = handlingTrace(envelope.traceparent, envelope.id);
 * if (trace) outgoing.traceparent = trace.child;
 */
export function handlingTrace(
  traceparent: string | undefined,
  messageId: string,
): HandlingTrace | undefined {
  const parsed = parseTraceparent(traceparent);
  if (!parsed) return undefined;
  const spanId = spanIdOf(messageId);
  return {
    traceId: parsed.traceId,
    spanId,
    parentId: parsed.parentId,
    child: `00-${parsed.traceId}-${spanId}-${parsed.flags}`,
  };
}
