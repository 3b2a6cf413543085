/**
 * Spans of a workflow's steps (with the OpenTelemetry SDK's in-memory exporter): each attempt of
 * each step is a span named after the workflow, the command and the step, carrying the instance
 * id and step name, the child of the span of the turn that ran it — so the workflow's trace
 * holds its steps. A failed attempt's span is marked failed.
 */
import { workflow } from '@baton/core';
import { fireDueTimers, Worker } from '@baton/core/engine';
import * as openTelemetry from '@opentelemetry/api';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
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
