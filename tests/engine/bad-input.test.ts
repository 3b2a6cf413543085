import { actor, type BatonError, ErrorCode, isBatonError } from '@baton/core';
import { type Envelope, encodeEnvelope, INGRESS } from '@baton/core/adapter';
import { redriveDeadLetter } from '@baton/core/engine';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { bank } from './bank.ts';
import { type Harness, settled, setup } from './helpers.ts';

/** Awaits `promise` and returns the BatonError it rejects with. */
async function rejection(promise: Promise<unknown>): Promise<BatonError> {
  const result = await settled(promise);
  if (result.ok) throw new Error('expected a rejection, got a value');
  if (!isBatonError(result.error)) throw result.error;
  return result.error;
}

function rawEnvelope(id: string, to: string, name: string, payload: unknown): Envelope {
  return { id, from: INGRESS, seq: 0, to, name, payload, sentAt: Date.now() };
}

async function enqueueRaw(h: Harness, envelope: Envelope): Promise<void> {
  await h.backend.queue.send([
    { group: envelope.to, dedupeId: envelope.id, body: encodeEnvelope(envelope) },
  ]);
}

describe('bad input at the client', () => {
  it('throws INVALID_PAYLOAD naming the field for an invalid payload, and enqueues nothing', async () => {
    const { Account, Audit } = bank();
    const h = setup({ actors: [Account, Audit] });
    const error = await rejection(h.client.send(Account.ref('a'), 'deposit', { amount: -1 }));

    expect(error.code).toBe(ErrorCode.INVALID_PAYLOAD);
    expect(error.message).toContain('payload.amount');
    expect(error.details.issues).toEqual([{ path: 'payload.amount', message: expect.any(String) }]);
    expect(h.backend.queue.counts().total).toBe(0);
  });

  it('rejects an ask with an invalid payload before enqueueing anything', async () => {
    const { Account, Audit } = bank();
    const h = setup({ actors: [Account, Audit] });
    const error = await rejection(
      h.client.ask(Account.ref('a'), 'deposit', { amount: 'ten' as unknown as number }),
    );

    expect(error.code).toBe(ErrorCode.INVALID_PAYLOAD);
    expect(error.message).toContain('payload.amount');
    expect(h.backend.queue.counts().total).toBe(0);
  });

  it('throws UNKNOWN_ACTOR for an actor type the client was not given, and enqueues nothing', async () => {
    const { Account, Audit } = bank();
    const h = setup({ actors: [Account] });
    const error = await rejection(h.client.send(Audit.ref('log'), 'record', { entry: 'x' }));

    expect(error.code).toBe(ErrorCode.UNKNOWN_ACTOR);
    expect(h.backend.queue.counts().total).toBe(0);
  });

  it('throws UNKNOWN_MESSAGE for a message name the actor has no handler for, and enqueues nothing', async () => {
    const { Account, Audit } = bank();
    const h = setup({ actors: [Account, Audit] });
    const error = await rejection(
      h.client.send(Account.ref('a'), 'close' as 'deposit', { amount: 1 }),
    );

    expect(error.code).toBe(ErrorCode.UNKNOWN_MESSAGE);
    expect(error.details).toEqual({ type: 'account', name: 'close' });
    expect(h.backend.queue.counts().total).toBe(0);
  });

  it.each(['', 'x'.repeat(201)])(
    'throws INVALID_ARGUMENT for the idempotency key %j, and enqueues nothing',
    async (idempotencyKey) => {
      const { Account, Audit } = bank();
      const h = setup({ actors: [Account, Audit] });
      const error = await rejection(
        h.client.send(Account.ref('a'), 'deposit', { amount: 1 }, { idempotencyKey }),
      );

      expect(error.code).toBe(ErrorCode.INVALID_ARGUMENT);
      expect(h.backend.queue.counts().total).toBe(0);
    },
  );
});

describe('bad input that reached the inbox', () => {
  // The doors validate against the code running there; what reached the inbox and fails here
  // may be from newer code (a rolling deploy), so it waits and is kept as a dead letter.
  it('keeps an envelope with an invalid payload as a dead letter, applying the later messages', async () => {
    const { Account, Audit, runs } = bank();
    const h = setup({ actors: [Account, Audit] });
    await h.client.send(Account.ref('a'), 'deposit', { amount: 1 });
    await enqueueRaw(h, rawEnvelope('raw-1', 'account/a', 'deposit', { amount: 'lots' }));
    await h.client.send(Account.ref('a'), 'deposit', { amount: 2 });
    await h.run();

    expect(await h.state('account/a')).toEqual({ balance: 3, history: ['+1', '+2'] });
    expect(runs.deposit).toBe(2);
    expect(await h.client.outcome('raw-1')).toMatchObject({
      ok: false,
      error: {
        code: ErrorCode.DEAD_LETTERED,
        details: {
          cause: {
            details: {
              cause: {
                code: ErrorCode.INVALID_PAYLOAD,
                details: { issues: [{ path: 'payload.amount' }] },
              },
            },
          },
        },
      },
    });
    expect(await h.backend.store.listDeadLetters('account/a')).toMatchObject([
      { messageId: 'raw-1' },
    ]);
    expect(h.backend.queue.counts()).toMatchObject({ total: 0, deadLetters: 0 });
  });

  it('keeps an envelope with an unknown message name as a dead letter, applying the later messages', async () => {
    const { Account, Audit } = bank();
    const h = setup({ actors: [Account, Audit] });
    await enqueueRaw(h, rawEnvelope('raw-2', 'account/a', 'close', {}));
    await h.client.send(Account.ref('a'), 'deposit', { amount: 2 });
    await h.run();

    expect(await h.state('account/a')).toEqual({ balance: 2, history: ['+2'] });
    expect(await h.client.outcome('raw-2')).toMatchObject({
      ok: false,
      error: {
        code: ErrorCode.DEAD_LETTERED,
        details: { cause: { details: { cause: { code: ErrorCode.UNKNOWN_MESSAGE } } } },
      },
    });
  });

  it('never applies an envelope to an actor other than the group it came in, and dead-letters it', async () => {
    const { Account, Audit } = bank();
    const h = setup({ actors: [Account, Audit] });
    // An envelope for account/b in account/a's group: applying it would give a's money to b.
    const stray = rawEnvelope('stray', 'account/b', 'deposit', { amount: 7 });
    await h.backend.queue.send([
      { group: 'account/a', dedupeId: 'stray', body: encodeEnvelope(stray) },
    ]);
    await h.run();

    expect(await h.backend.store.load('account/a')).toBeUndefined();
    expect(await h.backend.store.load('account/b')).toBeUndefined();
    expect(h.backend.queue.deadLetters()).toMatchObject([{ dedupeId: 'stray' }]);
  });

  it('applies the messages before a body that is not an envelope and dead-letters that body after its retries', async () => {
    const { Account, Audit } = bank();
    const h = setup({ actors: [Account, Audit] });
    await h.client.send(Account.ref('a'), 'deposit', { amount: 1 });
    await h.client.send(Account.ref('a'), 'deposit', { amount: 2 });
    await h.backend.queue.send([{ group: 'account/a', dedupeId: 'junk', body: 'not json' }]);
    await h.run();

    expect(await h.state('account/a')).toEqual({ balance: 3, history: ['+1', '+2'] });
    expect(h.backend.queue.deadLetters()).toMatchObject([
      { dedupeId: 'junk', body: 'not json', receiveCount: 5 },
    ]);
    expect(h.backend.queue.counts().total).toBe(0);
  });

  it('keeps a message whose handler sends an invalid payload as a dead letter, sending nothing, and applies it once redriven after the fix', async () => {
    const { Audit } = bank();
    const code = { fixed: false };
    const Forwarder = actor({
      name: 'forwarder',
      state: z.object({ forwarded: z.number() }),
      initial: () => ({ forwarded: 0 }),
      handlers: {
        forward: {
          payload: z.object({ entry: z.unknown() }),
          handle: (ctx, { entry }) => {
            ctx.state.forwarded++;
            ctx.send(Audit.ref('log'), 'record', { entry: 'before' });
            ctx.send(Audit.ref('log'), 'record', {
              entry: code.fixed ? String(entry) : (entry as string),
            });
          },
        },
      },
    });
    const h = setup({ actors: [Forwarder, Audit] });
    const { messageId } = await h.client.send(Forwarder.ref('f'), 'forward', { entry: 42 });
    await h.client.send(Forwarder.ref('f'), 'forward', { entry: 'ok' });
    await h.run();

    // The refusal is the code's fault, not the message's: kept, not rejected for good. The
    // sender's outcome names the handler that made the bad call, not just its target.
    expect(await h.client.outcome(messageId)).toMatchObject({
      ok: false,
      error: {
        code: ErrorCode.DEAD_LETTERED,
        message: expect.stringMatching(
          /^in handler "forward" of forwarder\/f: invalid payload for audit\/log "record": payload\.entry: .*; the state is unchanged and the message was kept as a dead letter: fix the handler or the app, deploy, then redrive it$/,
        ),
        details: {
          cause: {
            code: ErrorCode.INVALID_PAYLOAD,
            details: {
              to: 'audit/log',
              name: 'record',
              sentBy: { actor: 'forwarder/f', handler: 'forward' },
            },
          },
        },
      },
    });
    expect(await h.state('forwarder/f')).toEqual({ forwarded: 1 });
    expect(await h.state('audit/log')).toEqual({ entries: ['before', 'ok'] });

    code.fixed = true;
    const [letter, ...more] = await h.backend.store.listDeadLetters('forwarder/f');
    expect(more).toEqual([]);
    await redriveDeadLetter(h.backend.store, h.backend.queue, 'forwarder/f', letter!.messageId);
    await h.run();
    expect(await h.state('forwarder/f')).toEqual({ forwarded: 2 });
    expect(await h.state('audit/log')).toEqual({ entries: ['before', 'ok', 'before', '42'] });
    expect(await h.backend.store.listDeadLetters('forwarder/f')).toEqual([]);
  });

  it('keeps a message whose handler sends to an actor type the app does not register as a dead letter', async () => {
    const { Audit } = bank();
    const Noter = actor({
      name: 'noter',
      state: z.object({ noted: z.number() }),
      initial: () => ({ noted: 0 }),
      handlers: {
        note: {
          payload: z.object({}),
          handle: (ctx) => {
            ctx.state.noted++;
            ctx.send(Audit.ref('log'), 'record', { entry: 'noted' });
          },
        },
      },
    });
    // Audit left out of the app: a deploy that forgot to register it.
    const h = setup({ actors: [Noter] });
    const { messageId } = await h.client.send(Noter.ref('n'), 'note', {});
    await h.run();

    expect(await h.client.outcome(messageId)).toMatchObject({
      ok: false,
      error: {
        code: ErrorCode.DEAD_LETTERED,
        message: expect.stringMatching(
          /^in handler "note" of noter\/n: unknown actor type "audit": register it with the app .*; the state is unchanged and the message was kept as a dead letter/,
        ),
        details: { cause: { code: ErrorCode.UNKNOWN_ACTOR } },
      },
    });
    expect(await h.state('noter/n')).toEqual({ noted: 0 });
    expect(await h.backend.store.listDeadLetters('noter/n')).toMatchObject([{ messageId }]);
  });
});
