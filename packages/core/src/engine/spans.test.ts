import { describe, expect, it } from 'vitest';
import type { Envelope } from '../adapter/envelope.ts';
import { type OpenTelemetryApi, startHandlingSpan, startInnerSpan } from './spans.ts';

const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const PARENT = '00f067aa0ba902b7';

/** A recording stand-in for `@opentelemetry/api`: what Baton asks of it, and what it did. */
function fakeOpenTelemetry() {
  const calls: {
    parent?: unknown;
    started?: unknown[];
    attributes: unknown[];
    status: unknown[];
    ended: number;
  } = {
    attributes: [],
    status: [],
    ended: 0,
  };
  const api = {
    context: { active: () => 'active-context' },
    trace: {
      setSpanContext: (context: unknown, spanContext: unknown) => {
        calls.parent = { context, spanContext };
        return 'parent-context';
      },
      getTracer: (name: string) => ({
        startSpan: (...args: unknown[]) => {
          calls.started = [name, ...args];
          return {
            spanContext: () => ({ traceId: TRACE, spanId: 'b7ad6b7169203331', traceFlags: 1 }),
            setAttribute: (key: string, value: unknown) => calls.attributes.push([key, value]),
            setStatus: (status: unknown) => calls.status.push(status),
            end: () => calls.ended++,
          };
        },
      }),
    },
  } as unknown as OpenTelemetryApi;
  return { api, calls };
}

const envelope: Envelope = {
  id: 'ingress:k1',
  from: 'ingress',
  seq: 0,
  to: 'account/alice',
  name: 'deposit',
  payload: null,
  sentAt: 0,
  traceparent: `00-${TRACE}-${PARENT}-01`,
};
const where = { actor: 'account/alice', inboxPosition: '42' };

describe('startHandlingSpan', () => {
  it("starts a consumer span named by actor type and message, child of the sender's span", () => {
    const { api, calls } = fakeOpenTelemetry();
    const span = startHandlingSpan(api, envelope, where);
    expect(calls.parent).toEqual({
      context: 'active-context',
      spanContext: { traceId: TRACE, spanId: PARENT, traceFlags: 1, isRemote: true },
    });
    expect(calls.started).toEqual([
      'baton',
      'account deposit',
      {
        kind: 4,
        attributes: {
          'messaging.system': 'baton',
          'messaging.operation.type': 'process',
          'messaging.message.id': 'ingress:k1',
          'baton.actor': 'account/alice',
          'baton.sender': 'ingress',
          'baton.inbox_position': '42',
        },
      },
      'parent-context',
    ]);
    expect(span.trace).toEqual({
      traceId: TRACE,
      spanId: 'b7ad6b7169203331',
      parentId: PARENT,
      child: `00-${TRACE}-b7ad6b7169203331-01`,
    });
    span.end();
    expect(calls).toMatchObject({ attributes: [], status: [], ended: 1 });
  });

  it('starts a new trace in the active context for a message without a traceparent, and marks a failure', () => {
    const { api, calls } = fakeOpenTelemetry();
    const { traceparent: _, ...untraced } = envelope;
    const span = startHandlingSpan(api, untraced, where);
    expect(calls.parent).toBeUndefined();
    expect(calls.started?.at(-1)).toBe('active-context');
    expect(span.trace?.parentId).toBe('0000000000000000');
    span.end({ code: 'REJECTED', message: 'no' });
    expect(calls).toMatchObject({
      attributes: [['baton.error_code', 'REJECTED']],
      status: [{ code: 2, message: 'no' }],
      ended: 1,
    });
  });

  it('derives the trace from the message id without OpenTelemetry', () => {
    const span = startHandlingSpan(undefined, envelope, where);
    expect(span.trace).toMatchObject({ traceId: TRACE, parentId: PARENT });
    expect(span.trace?.child).toMatch(new RegExp(`^00-${TRACE}-[0-9a-f]{16}-01$`));
    span.end({ code: 'REJECTED', message: 'no' });
    expect(startHandlingSpan(undefined, { ...envelope, traceparent: undefined }, where).trace).toBe(
      undefined,
    );
  });
});

describe('startInnerSpan', () => {
  const SPAN = 'a1b2c3d4e5f60718';
  const trace = { traceId: TRACE, spanId: SPAN, parentId: PARENT, child: `00-${TRACE}-${SPAN}-01` };

  it('is a no-op without OpenTelemetry or without a trace', () => {
    const { api, calls } = fakeOpenTelemetry();
    startInnerSpan(undefined, trace, 'step', {}).end({ code: 'X', message: 'x' });
    startInnerSpan(api, undefined, 'step', {}).end({ code: 'X', message: 'x' });
    expect(calls).toEqual({ attributes: [], status: [], ended: 0 });
  });

  it("starts an internal span under the handling's span, and ends it failed with the error", () => {
    const { api, calls } = fakeOpenTelemetry();
    const span = startInnerSpan(api, trace, 'order step charge', { 'baton.step': 'charge' });
    expect(calls.parent).toEqual({
      context: 'active-context',
      spanContext: { traceId: TRACE, spanId: SPAN, traceFlags: 1 },
    });
    expect(calls.started).toEqual([
      'baton',
      'order step charge',
      { kind: 0, attributes: { 'baton.step': 'charge' } },
      'parent-context',
    ]);
    span.end({ code: 'REJECTED', message: 'card declined' });
    expect(calls.attributes).toEqual([['baton.error_code', 'REJECTED']]);
    expect(calls.status).toEqual([{ code: 2, message: 'card declined' }]);
    expect(calls.ended).toBe(1);
  });

  it('starts under the parent given, at the start time given, and ends cleanly without an error', () => {
    const { api, calls } = fakeOpenTelemetry();
    const startTime = new Date(1_000);
    const other = 'ffeeddccbbaa9988';
    const span = startInnerSpan(
      api,
      trace,
      'wait',
      {},
      { parent: `00-${TRACE}-${other}-00`, startTime },
    );
    expect(calls.parent).toEqual({
      context: 'active-context',
      spanContext: { traceId: TRACE, spanId: other, traceFlags: 0 },
    });
    expect(calls.started).toEqual([
      'baton',
      'wait',
      { kind: 0, attributes: {}, startTime },
      'parent-context',
    ]);
    span.end();
    expect(calls).toMatchObject({ attributes: [], status: [], ended: 1 });
  });
});
