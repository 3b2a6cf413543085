import type { Envelope } from '../adapter/envelope.ts';
import type { HandlingOptions } from './handlerEffects.ts';

/** The fields the log entries of actor `actorId`'s handling of `envelope` carry. */
export function handlingLogFields(
  actorId: string,
  envelope: Envelope,
  options: HandlingOptions,
): Record<string, unknown> {
  const { inboxPosition, trace } = options;
  return {
    actor: actorId,
    messageId: envelope.id,
    inboxPosition,
    ...(trace && { traceId: trace.traceId, spanId: trace.spanId, parentSpanId: trace.parentId }),
  };
}
