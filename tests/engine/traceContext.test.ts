/**
 * W3C trace context from ingress through every hop: each message sent in consequence carries the
 * trace, naming as parent the span of the handling that sent it; handlers log the ids.
 */
import { ingressHandler } from '@baton/aws/lambda';
import { actor, ErrorCode, jsonLogger } from '@baton/core';
import { decodeEnvelope, type Envelope, type QueueMessage, spanIdOf } from '@baton/core/adapter';
import { Client } from '@baton/core/client';
import { createEngine, Worker } from '@baton/core/engine';
import { createEmbeddedBackend } from '@baton/embedded';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { runUntilIdle, virtualClock } from './helpers.ts';

const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const TRACEPARENT = `00-${TRACE}-00f067aa0ba902b7-01`;

/** Passes a message along a chain of keys, logging at each hop. */
const Relay = actor({
  name: 'relay',
  state: z.object({ seen: z.number() }),
  initial: () => ({ seen: 0 }),
  handlers: {
    /** Schedules a timer and asks the next relay: both carry this handling's trace. */
    later: {
      public: true,
      payload: z.object({ next: z.string() }),
      handle: (ctx, { next }) => {
        ctx.schedule(60_000, 'pass', { rest: [] });
        ctx.ask(Relay.ref(next), 'pass', { rest: [] }, { onReply: 'answered' });
      },
    },
    answered: { payload: z.unknown(), handle: () => {} },
    pass: {
      public: true,
      payload: z.object({ rest: z.array(z.string()) }),
      handle: (ctx, { rest }) => {
        ctx.state.seen++;
        ctx.log.info('passing on');
        const [next, ...after] = rest;
        if (next) ctx.send(Relay.ref(next), 'pass', { rest: after });
      },
    },
  },
});

function deployment() {
  const clock = virtualClock();
  const backend = createEmbeddedBackend({ clock });
  const lines: Record<string, unknown>[] = [];
  const logger = jsonLogger({ level: 'info', write: (line) => lines.push(JSON.parse(line)) });
  // The inbox, recording the envelopes sent into it, by target.
  const sent = new Map<string, Envelope>();
  const queue = new Proxy(backend.queue, {
    get(target, property) {
      if (property === 'send') {
        return (messages: readonly QueueMessage[]) => {
          for (const { body } of messages) {
            const envelope = decodeEnvelope(body)!;
            sent.set(envelope.to, envelope);
          }
          return target.send(messages);
        };
      }
      const value = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  const actors = [Relay];
  const engine = createEngine({ actors, store: backend.store, queue, clock, logger });
  const worker = new Worker(engine);
  const client = new Client({ actors, store: backend.store, queue, clock }).asSystem();
  return {
    store: backend.store,
    queue,
    client,
    lines,
    envelopes: () => sent,
    run: () => runUntilIdle(worker, backend, clock),
  };
}

describe('trace context', () => {
  it('carries a trace given at ingress through every hop, each naming its sender’s span', async () => {
    const { client, envelopes, lines, run } = deployment();
    await client.send(Relay.ref('a'), 'pass', { rest: ['b', 'c'] }, { traceparent: TRACEPARENT });
    await run();
    const sent = envelopes();
    const [a, b, c] = ['relay/a', 'relay/b', 'relay/c'].map((id) => sent.get(id)!);
    expect(a!.traceparent).toBe(TRACEPARENT);
    expect(b!.traceparent).toBe(`00-${TRACE}-${spanIdOf(a!.id)}-01`);
    expect(c!.traceparent).toBe(`00-${TRACE}-${spanIdOf(b!.id)}-01`);

    const logged = lines.filter((line) => line.message === 'passing on');
    expect(logged).toEqual([
      expect.objectContaining({
        actor: 'relay/a',
        messageId: a!.id,
        inboxPosition: expect.any(String),
        traceId: TRACE,
        spanId: spanIdOf(a!.id),
        parentSpanId: '00f067aa0ba902b7',
      }),
      expect.objectContaining({
        actor: 'relay/b',
        spanId: spanIdOf(b!.id),
        parentSpanId: spanIdOf(a!.id),
      }),
      expect.objectContaining({
        actor: 'relay/c',
        spanId: spanIdOf(c!.id),
        parentSpanId: spanIdOf(b!.id),
      }),
    ]);
  });

  it("gives a timer and an ask's continuation the trace of the handling that made them", async () => {
    const { client, store, envelopes, run } = deployment();
    await client.send(Relay.ref('a'), 'later', { next: 'b' }, { traceparent: TRACEPARENT });
    await run();
    // The ask the handling sent names its span as parent; so does the timer it scheduled (which
    // waits; the ask's continuation was answered by then).
    const child = envelopes().get('relay/b')!.traceparent;
    expect(child).toMatch(new RegExp(`^00-${TRACE}-[0-9a-f]{16}-01$`));
    expect(child).not.toBe(TRACEPARENT);
    expect((await store.listTimers('relay/a')).map((t) => t.traceparent)).toEqual([child]);
    const untraced = deployment();
    await untraced.client.send(Relay.ref('a'), 'later', { next: 'b' });
    await untraced.run();
    expect((await untraced.store.listTimers('relay/a')).map((t) => t.traceparent)).toEqual([
      undefined,
    ]);
  });

  it('leaves messages without a trace untraced', async () => {
    const { client, envelopes, lines, run } = deployment();
    await client.send(Relay.ref('a'), 'pass', { rest: ['b'] });
    await run();
    for (const envelope of envelopes().values()) expect(envelope.traceparent).toBeUndefined();
    const logged = lines.filter((line) => line.message === 'passing on');
    expect(logged).toHaveLength(2);
    for (const line of logged) expect(line).not.toHaveProperty('traceId');
  });

  it('refuses a malformed traceparent at the client, naming the format', async () => {
    const { client } = deployment();
    for (const traceparent of ['00-abc-def-01', `00-${'0'.repeat(32)}-00f067aa0ba902b7-01`]) {
      await expect(
        client.send(Relay.ref('a'), 'pass', { rest: [] }, { traceparent }),
      ).rejects.toMatchObject({
        code: ErrorCode.INVALID_ARGUMENT,
        message: expect.stringContaining('00-<32 hex>-<16 hex>-<2 hex>'),
      });
    }
  });

  it('takes the trace from the HTTP ingress’s traceparent header, and drops a malformed one', async () => {
    const { store, queue, envelopes } = deployment();
    const handle = ingressHandler({ actors: [Relay], store, queue });
    const request = (key: string, traceparent: string) => ({
      rawPath: '/send',
      headers: { traceparent, 'content-type': 'application/json' },
      body: JSON.stringify({
        to: `relay/${key}`,
        name: 'pass',
        payload: { rest: [] },
        idempotencyKey: key,
      }),
      isBase64Encoded: false,
      requestContext: { http: { method: 'POST' } },
    });
    expect((await handle(request('x', TRACEPARENT) as never)).statusCode).toBe(202);
    expect((await handle(request('y', 'not-a-trace') as never)).statusCode).toBe(202);
    expect(envelopes().get('relay/x')?.traceparent).toBe(TRACEPARENT);
    expect(envelopes().get('relay/y')).not.toHaveProperty('traceparent');
  });
});
