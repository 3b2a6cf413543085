/**
 * OpenTelemetry spans of message handlings, through the app's own `@opentelemetry/api` module
 * (`EngineOptions.openTelemetry`): Baton has no dependency on it. Each handling is a CONSUMER
 * span, child of the span that sent the message (its `traceparent`), and the messages it sends
 * carry this span as their parent — so a trace follows a request from ingress through every hop.
 * Without OpenTelemetry, the ids are derived from message ids instead (see traceContext.ts).
 */
import type { Envelope } from '../adapter/envelope.ts';
import { type HandlingTrace, handlingTrace, parseTraceparent } from '../adapter/traceContext.ts';
import type { InnerSpan, InnerSpanOptions } from '../contextSlots.ts';

/** The part of OpenTelemetry's span context Baton reads and makes. */
export interface OtelSpanContext {
  readonly traceId: string;
  readonly spanId: string;
  readonly traceFlags: number;
  readonly isRemote?: boolean;
}

/** The part of an OpenTelemetry `Span` Baton calls. */
export interface OtelSpan {
  spanContext(): OtelSpanContext;
  setAttribute(key: string, value: string | number | boolean): unknown;
  setStatus(status: { code: number; message?: string }): unknown;
  end(endTime?: Date): void;
}

/**
 * The part of the `@opentelemetry/api` module Baton calls: pass the module itself.
 *
 * @example
 * import * as openTelemetry from '@opentelemetry/api';
 * new Worker({ actors, store, queue, openTelemetry });
 */
export interface OpenTelemetryApi {
  readonly trace: {
    getTracer(
      name: string,
      version?: string,
    ): {
      startSpan(
        name: string,
        options?: {
          kind?: number;
          attributes?: Record<string, string | number | boolean>;
          startTime?: Date;
        },
        context?: never,
      ): OtelSpan;
    };
    setSpanContext(context: never, spanContext: OtelSpanContext): unknown;
  };
  readonly context: { active(): unknown };
}

/** OpenTelemetry's `SpanKind.CONSUMER` and `SpanStatusCode.ERROR`. */
const CONSUMER = 4;
const ERROR = 2;

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
        span.setStatus({ code: ERROR, message: error.message });
      }
      span.end();
    },
  };
}

/** OpenTelemetry's `SpanKind.INTERNAL`. */
const INTERNAL = 0;

/**
 * Starts an INTERNAL span, child of the handling's span (or of `options.parent`); a no-op
 * without OpenTelemetry.
 */
export function startInnerSpan(
  otel: OpenTelemetryApi | undefined,
  trace: HandlingTrace | undefined,
  name: string,
  attributes: Record<string, string | number | boolean>,
  options: InnerSpanOptions = {},
): InnerSpan {
  if (!otel || !trace) return { end: () => {} };
  const parent = parseTraceparent(options.parent) ?? {
    traceId: trace.traceId,
    parentId: trace.spanId,
    flags: trace.child.slice(-2),
  };
  const context = otel.trace.setSpanContext(otel.context.active() as never, {
    traceId: parent.traceId,
    spanId: parent.parentId,
    traceFlags: Number.parseInt(parent.flags, 16),
  });
  const span = otel.trace.getTracer('baton').startSpan(
    name,
    {
      kind: INTERNAL,
      attributes,
      ...(options.startTime ? { startTime: options.startTime } : {}),
    },
    context as never,
  );
  return {
    end(error, endTime) {
      if (error) {
        span.setAttribute('baton.error_code', error.code);
        span.setStatus({ code: ERROR, message: error.message });
      }
      span.end(endTime);
    },
  };
}
