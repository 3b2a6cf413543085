/**
 * What Baton calls of the app's own `@opentelemetry/api` module (`EngineOptions.openTelemetry`):
 * Baton has no dependency on it. The engine starts a span for each handling (engine/spans.ts);
 * workflows start the spans of their steps and commands inside it ({@link startInnerSpan}).
 */
import { parseTraceparent } from './shared/traceparent.ts';

/** A span of work inside a handling (a workflow's step), and what ends it. */
export interface InnerSpan {
  /** Ends it now, or at `endTime`; `error` marks it failed. */
  end(error?: { code: string; message: string }, endTime?: Date): void;
}

/** Where a span of work goes: under another span than the turn's, and since when. */
export interface InnerSpanOptions {
  /** The parent as a W3C `traceparent` (e.g. a workflow's first turn). @default the turn's span */
  readonly parent?: string;
  /** When the work began (a wait issued in an earlier turn). @default now */
  readonly startTime?: Date;
}

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

/** OpenTelemetry's `SpanStatusCode.ERROR`. */
export const SPAN_STATUS_ERROR = 2;

/** A handling's trace as its inner spans need it: its trace, its span, its `traceparent`. */
export interface SpanParent {
  readonly traceId: string;
  readonly spanId: string;
  readonly child: string;
}

/** OpenTelemetry's `SpanKind.INTERNAL`. */
const INTERNAL = 0;

/**
 * Starts an INTERNAL span, child of the handling's span (or of `options.parent`); a no-op
 * without OpenTelemetry.
 */
export function startInnerSpan(
  otel: OpenTelemetryApi | undefined,
  trace: SpanParent | undefined,
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
        span.setStatus({ code: SPAN_STATUS_ERROR, message: error.message });
      }
      span.end(endTime);
    },
  };
}
