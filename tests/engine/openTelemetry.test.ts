/**
 * Spans through the app's own `@opentelemetry/api` (here with the SDK's in-memory exporter): a
 * CONSUMER span per message handling, child of the span that sent it, across hops; a rejection
 * marks its span failed.
 */

import { actor, TerminalError } from '@baton/core';
import * as openTelemetry from '@opentelemetry/api';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { afterAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { setup } from './helpers.ts';

const exporter = new InMemorySpanExporter();
openTelemetry.trace.setGlobalTracerProvider(
  new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }),
);
afterAll(() => openTelemetry.trace.disable());

const Account = actor({
  name: 'account',
  state: z.object({ balance: z.number() }),
  initial: () => ({ balance: 10 }),
  handlers: {
    transfer: {
      payload: z.object({ to: z.string(), amount: z.number() }),
      handle: (ctx, { to, amount }) => {
        if (amount > ctx.state.balance) throw new TerminalError('insufficient funds');
        ctx.state.balance -= amount;
        ctx.send(Account.ref(to), 'deposit', { amount });
      },
    },
    deposit: {
      payload: z.object({ amount: z.number() }),
      handle: (ctx, { amount }) => {
        ctx.state.balance += amount;
      },
    },
    close: {
      payload: z.object({}),
      handle: (ctx) => ctx.halt(),
    },
  },
});

const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const PARENT = '00f067aa0ba902b7';

describe('OpenTelemetry spans', () => {
  it('records a span per handling, each the child of the span that sent its message', async () => {
    exporter.reset();
    const h = setup({ actors: [Account] });
    const engine = { ...h.engine, openTelemetry };
    const { Worker } = await import('@baton/core/engine');
    const worker = new Worker(engine);
    const traceparent = `00-${TRACE}-${PARENT}-01`;
    await h.client.send(
      Account.ref('alice'),
      'transfer',
      { to: 'bob', amount: 3 },
      { traceparent },
    );
    while ((await worker.poll()) > 0);

    const spans = exporter.getFinishedSpans();
    const transfer = spans.find((s) => s.name === 'account transfer')!;
    const deposit = spans.find((s) => s.name === 'account deposit')!;
    expect(transfer.spanContext().traceId).toBe(TRACE);
    expect(transfer.parentSpanContext?.spanId).toBe(PARENT);
    expect(transfer.kind).toBe(openTelemetry.SpanKind.CONSUMER);
    expect(transfer.attributes).toMatchObject({
      'baton.actor': 'account/alice',
      'messaging.system': 'baton',
    });
    expect(deposit.spanContext().traceId).toBe(TRACE);
    expect(deposit.parentSpanContext?.spanId).toBe(transfer.spanContext().spanId);
    expect(deposit.attributes['baton.sender']).toBe('account/alice');
    expect(transfer.status.code).toBe(openTelemetry.SpanStatusCode.UNSET);
  });

  it('starts a trace at an untraced message, and marks a rejected handling failed', async () => {
    exporter.reset();
    const h = setup({ actors: [Account] });
    const { Worker } = await import('@baton/core/engine');
    const worker = new Worker({ ...h.engine, openTelemetry });
    await h.client.send(Account.ref('carol'), 'transfer', { to: 'dan', amount: 99 });
    while ((await worker.poll()) > 0);
    const [span] = exporter.getFinishedSpans();
    expect(span?.parentSpanContext).toBeUndefined();
    expect(span?.status).toMatchObject({
      code: openTelemetry.SpanStatusCode.ERROR,
      message: 'insufficient funds',
    });
    expect(span?.attributes['baton.error_code']).toBe('REJECTED');
  });

  it('ends the span of a handling the engine could not finish, marked UNEXPECTED', async () => {
    exporter.reset();
    const h = setup({ actors: [Account] });
    // Halting lists the actor's timers; the store fails that read.
    const store = new Proxy(h.backend.store, {
      get(target, property) {
        if (property === 'listTimers') return () => Promise.reject(new Error('store unreachable'));
        const value: unknown = Reflect.get(target, property, target);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    const { Worker } = await import('@baton/core/engine');
    const worker = new Worker({ ...h.engine, store, openTelemetry });
    await h.client.send(Account.ref('carol'), 'close', {});
    await worker.poll();

    const span = exporter.getFinishedSpans().find((s) => s.name === 'account close');
    expect(span?.status).toEqual({
      code: openTelemetry.SpanStatusCode.ERROR,
      message: 'Error: store unreachable',
    });
    expect(span?.attributes['baton.error_code']).toBe('UNEXPECTED');
    expect(await h.record('account/carol')).toBeUndefined();
  });
});
