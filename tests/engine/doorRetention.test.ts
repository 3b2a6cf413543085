/**
 * A door given its engine's `idempotencyRetentionMs` keeps a key bound to its message for twice
 * that: a client's retry within the engine's retention is the same message, applied once, even
 * after the outcome that tells it has moved out to a closed page.
 */
import { actor, ErrorCode, silentLogger } from '@baton/core';
import { Client } from '@baton/core/client';
import { createEngine, Worker } from '@baton/core/engine';
import { createEmbeddedBackend } from '@baton/embedded';
import { httpIngress } from '@baton/server/http';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { runUntilIdle, virtualClock } from './helpers.ts';

const DAY = 24 * 60 * 60 * 1000;

const Account = actor({
  name: 'account',
  state: z.object({ paid: z.array(z.string()) }),
  initial: () => ({ paid: [] as string[] }),
  handlers: {
    pay: {
      public: true,
      payload: z.object({ bill: z.string() }),
      handle: (ctx, { bill }) => {
        ctx.state.paid.push(bill);
      },
    },
  },
});

describe('an engine keeping outcomes 40 days, and its HTTP door told so', () => {
  it('applies a keyed send once when the client retries it on day 29', async () => {
    const clock = virtualClock();
    const backend = createEmbeddedBackend({ clock });
    const idempotencyRetentionMs = 40 * DAY;
    const ports = { store: backend.store, queue: backend.queue, clock };
    const engine = createEngine({
      ...{ actors: [Account], ...ports, logger: silentLogger },
      idempotencyRetentionMs,
    });
    const worker = new Worker(engine);
    const ingress = httpIngress({ actors: [Account], ...ports, idempotencyRetentionMs });
    const pay = (bill: string) =>
      ingress({
        method: 'POST',
        path: '/send',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          to: 'account/a',
          name: 'pay',
          payload: { bill },
          idempotencyKey: bill,
        }),
      });
    expect((await pay('rent')).statusCode).toBe(202);
    await runUntilIdle(worker, backend, clock);
    // Later bills, a minute apart, close the outcome page that holds the rent's outcome.
    for (let i = 0; i < 60; i++) {
      clock.advance(60_000);
      await pay(`bill-${i}`);
      await runUntilIdle(worker, backend, clock);
    }
    clock.advance(29 * DAY);
    backend.store.purgeExpired();
    expect((await pay('rent')).statusCode).toBe(202);
    await runUntilIdle(worker, backend, clock);

    const { paid } = (await backend.store.load('account/a'))!.state as { paid: string[] };
    expect(paid.filter((bill) => bill === 'rent')).toEqual(['rent']);
    expect(paid).toHaveLength(61);
  });

  it('refuses a retention that is not a positive number of milliseconds', () => {
    const backend = createEmbeddedBackend();
    const ports = { actors: [Account], store: backend.store, queue: backend.queue };
    for (const idempotencyRetentionMs of [0, -1, Number.NaN, '14d' as unknown as number]) {
      expect(() => httpIngress({ ...ports, idempotencyRetentionMs })).toThrow(
        expect.objectContaining({
          code: ErrorCode.INVALID_ARGUMENT,
          message: expect.stringContaining('idempotencyRetentionMs must be a positive number'),
        }),
      );
      expect(() => new Client({ ...ports, idempotencyRetentionMs })).toThrow(/positive number/);
    }
  });
});
