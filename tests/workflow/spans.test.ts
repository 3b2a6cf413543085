/**
 * Spans of a workflow's steps (with the OpenTelemetry SDK's in-memory exporter): each attempt of
 * each step is a span named after the workflow, the command and the step, carrying the instance
 * id and step name, the child of the span of the turn that ran it — so the workflow's trace
 * holds its steps. A failed attempt's span is marked failed. Calls, sends, sleeps, waits and
 * callbacks get a span each too, from issue to end, in the workflow's trace even when a client's
 * signal began a trace of its own.
 */
import { actor, workflow } from '@baton/core';
import { fireDueTimers, Worker } from '@baton/core/engine';
import * as openTelemetry from '@opentelemetry/api';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { afterAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { runUntilIdle } from '../engine/helpers.ts';
import { workflowHarness } from './harness.ts';

const exporter = new InMemorySpanExporter();
openTelemetry.trace.setGlobalTracerProvider(
  new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }),
);
afterAll(() => openTelemetry.trace.disable());

const Pack = workflow({
  name: 'pack',
  input: z.object({}),
  run: async (ctx) => {
    await ctx.step('weigh', () => 3);
    return ctx.step(
      'label',
      ({ attempt }) => {
        if (attempt === 1) throw new Error('printer jammed');
        return 'L-1';
      },
      { retry: { initialDelayMs: 10 } },
    );
  },
});

const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';

describe("spans of a workflow's steps", () => {
  it("records a span per step attempt with the workflow, instance and step, child of its turn's span", async () => {
    exporter.reset();
    const h = workflowHarness([Pack.actor]);
    const worker = new Worker({ ...h.engine, openTelemetry });
    const traceparent = `00-${TRACE}-00f067aa0ba902b7-01`;
    await h.client.start(Pack, 'p1', {}, { traceparent });
    await runUntilIdle(worker, h.backend, h.clock);
    h.clock.set(h.clock.now() + 1_000);
    await fireDueTimers(h.engine, h.clock.now());
    await runUntilIdle(worker, h.backend, h.clock);
    expect(await h.client.result(Pack.ref('p1'))).toBe('L-1');

    const spans = exporter.getFinishedSpans();
    const steps = spans.filter((s) => s.name.startsWith('pack step '));
    expect(steps.map((s) => [s.name, s.attributes['baton.step_attempt']])).toEqual([
      ['pack step weigh', 1],
      ['pack step label', 1],
      ['pack step label', 2],
    ]);
    for (const step of steps) {
      expect(step.attributes).toMatchObject({
        'baton.workflow': 'pack',
        'baton.workflow_id': 'p1',
        'baton.step': step.name.slice('pack step '.length),
      });
      expect(step.spanContext().traceId).toBe(TRACE);
      const turn = spans.find((s) => s.spanContext().spanId === step.parentSpanContext?.spanId);
      expect(turn?.name, step.name).toMatch(/^wf-pack /);
      expect(turn?.attributes['baton.actor']).toBe('wf-pack/p1');
    }
    expect(steps[1]!.status.code).toBe(openTelemetry.SpanStatusCode.ERROR);
    expect(steps[2]!.status.code).toBe(openTelemetry.SpanStatusCode.UNSET);
  });
});

const Desk = actor({
  name: 'desk',
  state: z.object({ notes: z.array(z.string()) }),
  initial: () => ({ notes: [] as string[] }),
  handlers: {
    reserve: { payload: z.object({}), handle: () => 'R-1' },
    note: {
      payload: z.object({ text: z.string() }),
      handle: (ctx, { text }) => void ctx.state.notes.push(text),
    },
  },
});

const HOUR = 3_600_000;
/** OpenTelemetry's [seconds, nanoseconds] in ms. */
const ms = ([seconds, nanos]: [number, number]) => seconds * 1000 + nanos / 1e6;

const Ship = workflow({
  name: 'ship',
  input: z.object({}),
  run: async (ctx) => {
    const desk = Desk.ref('d');
    const reservation = await ctx.call(desk, 'reserve', {});
    await ctx.sleep(HOUR);
    const approval = ctx.createCallback<string>('approve');
    ctx.send(desk, 'note', { text: approval.token });
    const approved = await approval.result;
    const box = await ctx.waitForEvent<string>('packed');
    return ctx.step('label', () => `${reservation}/${approved}/${box}`);
  },
});

describe("spans of a workflow's calls, sends, sleeps, waits and callbacks", () => {
  it('records each from issue to end in the trace of the start, under the turn that ended it or the start', async () => {
    exporter.reset();
    const h = workflowHarness([Ship.actor, Desk]);
    const worker = new Worker({ ...h.engine, openTelemetry });
    const run = async () => {
      await runUntilIdle(worker, h.backend, h.clock);
    };
    await h.client.start(Ship, 's1', {}, { traceparent: `00-${TRACE}-00f067aa0ba902b7-01` });
    await run();
    h.clock.set(h.clock.now() + HOUR);
    await fireDueTimers(h.engine, h.clock.now());
    await run();
    const token = ((await h.state(Desk.ref('d').id)) as { notes: string[] }).notes[0]!;
    // Neither carries a trace: each begins one of its own.
    await h.client.completeCallback(token, { value: 'yes' });
    await run();
    await h.client.signal(Ship.ref('s1'), 'packed', 'B-1');
    await run();
    expect(await h.client.result(Ship.ref('s1'))).toBe('R-1/yes/B-1');

    const spans = exporter.getFinishedSpans();
    const byName = (name: string) => spans.filter((s) => s.name === name);
    const parentOf = (span: (typeof spans)[number]) =>
      spans.find((s) => s.spanContext().spanId === span.parentSpanContext?.spanId);
    const [start] = spans.filter((s) => s.name === 'wf-ship start');
    expect(start?.spanContext().traceId).toBe(TRACE);
    const commands = [
      'ship call desk.reserve',
      'ship sleep',
      'ship send desk.note',
      'ship callback approve',
      'ship event packed',
      'ship step label',
    ];
    for (const name of commands) {
      const found = byName(name);
      expect(found, name).toHaveLength(1);
      expect(found[0]!.spanContext().traceId, name).toBe(TRACE);
      expect(found[0]!.attributes, name).toMatchObject({
        'baton.workflow': 'ship',
        'baton.workflow_id': 's1',
      });
    }
    const [call] = byName('ship call desk.reserve');
    expect(call!.attributes).toMatchObject({ 'baton.command': 'call', 'baton.step_seq': 0 });
    // The reply's turn is in the workflow's trace (the reply carries it): the call's parent.
    expect(parentOf(call!)?.name).toBe('wf-ship _reply');
    const [sleep] = byName('ship sleep');
    expect(parentOf(sleep!)?.name).toBe('wf-ship _timer');
    // From the sleep's issue to its timer's fire, on the engine's (virtual) clock.
    expect(ms(sleep!.endTime) - ms(sleep!.startTime)).toBe(HOUR);
    // The callback, the event and the step after them ended in turns of other traces: their
    // spans hang under the start's.
    for (const name of ['ship callback approve', 'ship event packed', 'ship step label']) {
      const [span] = byName(name);
      expect(span!.parentSpanContext?.spanId, name).toBe(start!.spanContext().spanId);
    }
    const signalTurn = spans.find((s) => s.name === 'wf-ship signal');
    expect(signalTurn?.spanContext().traceId).not.toBe(TRACE);
  });
});
