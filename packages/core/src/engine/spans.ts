/**
 * OpenTelemetry spans of message handlings, through the app's own `@opentelemetry/api` module
 * (`EngineOptions.openTelemetry`): Baton has no dependency on it. Each handling is a CONSUMER
 * span, child of the span that sent the message (its `traceparent`), and the messages it sends
 * carry this span as their parent — so a trace follows a request from ingress through every hop.
 * Without OpenTelemetry, the ids are derived from message ids instead (see traceContext.ts).
 */
import type { Envelope } from '../adapter/envelope.ts';
import { type HandlingTrace, handlingTrace, parseTraceparent } from '../adapter/traceContext.ts';
import type { OpenTelemetryApi } from '../openTelemetry.ts';
import { SPAN_STATUS_ERROR } from '../openTelemetry.ts';

export type { OpenTelemetryApi, OtelSpan, OtelSpanContext } from '../openTelemetry.ts';
export { startInnerSpan } from '../openTelemetry.ts';

/** OpenTelemetry's `SpanKind.CONSUMER`. */
const CONSUMER = 4;

/** A handling's trace, and what ends its span. */
export interface HandlingSpan {
  readonly trace: HandlingTrace | undefined;
  /** Ends the span; `error` marks it failed (a rejection, or a failure to retry). */
  end(error?: { code: string; message: string }): void;
}

/** Ends no span: a handling without OpenTelemetry has none (one function for all of them). */
const noSpan = () => {};

/** Starts the span of handling `envelope` (name and payload as the handler sees them). */
export function startHandlingSpan(
  otel: OpenTelemetryApi | undefined,
  envelope: Envelope,
  attributes: { actor: string; inboxPosition: string },
): HandlingSpan {
  if (!otel) return { trace: handlingTrace(envelope.traceparent, envelope.id), end: noSpan };
  const parent = parseTraceparent(envelope.traceparent);
  const active = otel.context.active();
  const context = parent
    ? otel.trace.setSpanContext(active as never, {
        traceId: parent.traceId,
        spanId: parent.parentId,
        traceFlags: Number.parseInt(parent.flags, 16),
        isRemote: true,
      })
    : active;
  const type = attributes.actor.slice(0, attributes.actor.indexOf('/'));
  const span = otel.trace.getTracer('baton').startSpan(
    `${type} ${envelope.name}`,
    {
      kind: CONSUMER,
      attributes: {
        'messaging.system': 'baton',
        'messaging.operation.type': 'process',
        'messaging.message.id': envelope.id,
        'baton.actor': attributes.actor,
        'baton.sender': envelope.from,
        'baton.inbox_position': attributes.inboxPosition,
      },
    },
    context as never,
  );
  const { traceId, spanId, traceFlags } = span.spanContext();
  const flags = traceFlags.toString(16).padStart(2, '0');
  return {
    trace: {
      traceId,
      spanId,
      parentId: parent?.parentId ?? '0000000000000000',
      child: `00-${traceId}-${spanId}-${flags}`,
    },
    end(error) {
      if (error) {
        span.setAttribute('baton.error_code', error.code);
        span.setStatus({ code: SPAN_STATUS_ERROR, message: error.message });
      }
      span.end();
    },
  };
}
