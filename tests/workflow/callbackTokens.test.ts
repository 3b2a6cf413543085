/**
 * A callback's token is checked against the record's entry; one the record cannot check (a
 * forged token, a callback of an instance that does not exist, one moved out into a page long
 * ago) gets one answer, so a forged token tells nothing of which instances exist — even of
 * workflows no client may reach, whose `callback` handler every client may call.
 */
import { ANONYMOUS, ErrorCode, query, type WorkflowState, workflow } from '@baton/core';
import { Registry } from '@baton/core/adapter';
import type { Client } from '@baton/core/client';
import { evaluateQuery } from '@baton/server/evaluation';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { settled } from '../engine/helpers.ts';
import { workflowHarness } from './harness.ts';

const tokens: string[] = [];
const Internal = workflow({
  name: 'internal',
  input: z.object({}),
  run: async (ctx) => {
    const callback = ctx.createCallback<string>('approved');
    await ctx.step('ask', () => void tokens.push(callback.token));
    await callback.result;
    // Enough steps after it that the callback's entry moves out of the record into a page.
    for (let i = 0; i < 40; i++) await ctx.step(`s${i}`, () => 'x'.repeat(100));
    await ctx.waitForEvent('end');
  },
});

/** Hands out the token of its one callback, and returns what completes it. */
const Approval = workflow({
  name: 'approval',
  input: z.object({}),
  run: async (ctx) => {
    const callback = ctx.createCallback<string>('approved');
    await ctx.step('ask', () => void tokens.push(callback.token));
    return callback.result;
  },
});

const forge = (actorId: string, seq: number) =>
  Buffer.from(JSON.stringify([actorId, seq, 'guess'])).toString('base64url');

describe('a callback token the record cannot check', () => {
  it('gets the same answer whether its instance exists or not', async () => {
    tokens.length = 0;
    const h = workflowHarness([Internal.actor], { limits: { historyBytes: 1024 } });
    const ref = await h.client.start(Internal, 'i-1', {});
    await h.runAll({ until: h.clock.now() });
    await h.client.completeCallback(tokens[0]!, { value: 'yes' });
    await h.runAll({ until: h.clock.now() });
    const state = (await h.state(ref.id)) as WorkflowState;
    expect(state.sealed?.entries).toBeGreaterThan(1);

    const answer = async (to: string, token: string) => {
      const sent = settled(
        h.client.ask(Internal.ref(to), 'callback' as never, { token, ok: true } as never),
      );
      await h.runAll({ until: h.clock.now() });
      const { error } = (await sent) as { error: { code: string; message: string } };
      return { code: error.code, message: error.message };
    };
    const forExisting = await answer('i-1', forge(ref.id, 0));
    const forNone = await answer('i-2', forge(Internal.ref('i-2').id, 0));
    // The real token of the callback completed long ago, its entry in a page now.
    const replayed = await answer('i-1', tokens[0]!);

    expect(forExisting.code).toBe(ErrorCode.FORBIDDEN);
    expect(forNone).toEqual(forExisting);
    expect(replayed).toEqual(forExisting);
  });

  it('leaves no record for good at an instance nobody started', async () => {
    const h = workflowHarness([Internal.actor]);
    const stranger = Internal.ref('never-started');
    const sent = settled(
      h.client.ask(
        stranger,
        'callback' as never,
        { token: forge(stranger.id, 0), ok: true } as never,
      ),
    );
    await h.runAll({ until: h.clock.now() });
    expect(await sent).toMatchObject({ ok: false, error: { code: ErrorCode.FORBIDDEN } });
    // The rejection's outcome is kept as a halted instance's record is, then goes.
    const expiresAt = (await h.backend.store.load(stranger.id))?.expiresAt;
    expect(expiresAt).toBe(h.clock.now() + 2 * h.engine.markRetentionMs);
    h.clock.set(expiresAt!);
    h.backend.store.purgeExpired();
    expect(await h.backend.store.load(stranger.id)).toBeUndefined();
  });
});

describe('a callback sent from outside the app', () => {
  function outside() {
    tokens.length = 0;
    const h = workflowHarness([Internal.actor]);
    return { h, door: h.door };
  }
  const refusal = (door: Client, type: string, key: string, token: string) =>
    door
      .send(
        { type, key, id: `${type}/${key}` } as never,
        'callback' as never,
        { token, ok: true } as never,
        { caller: ANONYMOUS },
      )
      .then(
        () => 'accepted',
        (error: { code: string; message: string }) => `${error.code}: ${error.message}`,
      );

  it('is refused at the door, as a type that takes nothing from clients is, unless its token is one the instance journaled', async () => {
    const { h, door } = outside();
    const ref = await h.client.start(Internal, 'i-1', {});
    await h.runAll({ until: h.clock.now() });
    const forExisting = await refusal(door, 'wf-internal', 'i-1', forge(ref.id, 0));
    const forNone = await refusal(door, 'wf-internal', 'i-2', forge('wf-internal/i-2', 0));
    const garbage = await refusal(door, 'wf-internal', 'i-1', 'AAAA');
    const forNoType = await refusal(door, 'wf-nosuch', 'i-1', forge('wf-nosuch/i-1', 0));
    // A payload the callback's schema refuses tells no more than a forged token.
    const malformed = await door
      .send(
        { type: 'wf-internal', key: 'i-1', id: 'wf-internal/i-1' } as never,
        'callback' as never,
        1 as never,
        {
          caller: ANONYMOUS,
        },
      )
      .then(
        () => 'accepted',
        (error: { code: string; message: string }) => `${error.code}: ${error.message}`,
      );
    expect(forExisting).toMatch(
      /^FORBIDDEN: no actor type "wf-internal" takes messages from clients/,
    );
    expect([forNone, garbage, forNoType.replace('wf-nosuch', 'wf-internal'), malformed]).toEqual([
      forExisting,
      forExisting,
      forExisting,
      forExisting,
    ]);
    // Nothing was enqueued: no record at the instance nobody started.
    await h.runAll({ until: h.clock.now() });
    expect(await h.backend.store.load('wf-internal/i-2')).toBeUndefined();
    // The real token is let through, and completes the callback.
    expect(await refusal(door, 'wf-internal', 'i-1', tokens[0]!)).toBe('accepted');
    await h.runAll({ until: h.clock.now() });
    const state = (await h.state(ref.id)) as WorkflowState;
    // Past the callback: its steps ran, and it waits for its end.
    expect(state.status).toBe('waiting');
    expect(state.journal.some((entry) => entry.kind === 'step' && entry.name === 's39')).toBe(true);
  });

  it('answers a webhook’s keyed retry with its first outcome once the callback moved into a page', async () => {
    tokens.length = 0;
    const h = workflowHarness([Internal.actor], { limits: { historyBytes: 1024 } });
    const ref = await h.client.start(Internal, 'i-1', {});
    await h.runAll({ until: h.clock.now() });
    const complete = () =>
      settled(
        h.door.ask(ref, 'callback' as never, { token: tokens[0]!, ok: true } as never, {
          caller: ANONYMOUS,
          idempotencyKey: 'delivery-1',
        }),
      );
    const first = complete();
    await h.runAll({ until: h.clock.now() });
    expect(await first).toEqual({ ok: true, value: { accepted: true } });
    const state = (await h.state(ref.id)) as WorkflowState;
    expect(state.sealed?.entries).toBeGreaterThan(1);
    // The provider never read the answer, and delivers again, under the same key.
    const again = complete();
    await h.runAll({ until: h.clock.now() });
    expect(await again).toEqual({ ok: true, value: { accepted: true } });
    // A delivery under another key is a new message, and the record cannot check its token.
    await expect(
      h.door.send(ref, 'callback' as never, { token: tokens[0]!, ok: true } as never, {
        caller: ANONYMOUS,
        idempotencyKey: 'delivery-2',
      }),
    ).rejects.toMatchObject({ code: ErrorCode.FORBIDDEN });
    // Nor is another payload under the first delivery's key the message that claimed it.
    await expect(
      h.door.send(ref, 'callback' as never, { token: tokens[0]!, ok: false } as never, {
        caller: ANONYMOUS,
        idempotencyKey: 'delivery-1',
      }),
    ).rejects.toMatchObject({ code: ErrorCode.FORBIDDEN });
  });

  it('refuses at the door a second completion of a callback, from any caller, but for a keyed retry of the first', async () => {
    tokens.length = 0;
    // Its callback's entry stays in the record, where the door can check it.
    const Short = workflow({
      name: 'short',
      input: z.object({}),
      run: async (ctx) => {
        const callback = ctx.createCallback<string>('approved');
        await ctx.step('ask', () => void tokens.push(callback.token));
        await callback.result;
        await ctx.waitForEvent('end');
      },
    });
    const h = workflowHarness([Short.actor]);
    const { door } = h;
    const ref = await h.client.start(Short, 'i-1', {});
    await h.runAll({ until: h.clock.now() });
    const token = tokens[0]!;
    await door.completeCallback(
      token,
      { value: 'yes' },
      { caller: ANONYMOUS, idempotencyKey: 'd-1' },
    );
    await h.runAll({ until: h.clock.now() });
    const queued = h.backend.queue.counts().total;
    for (const client of [door, h.client]) {
      await expect(
        client.completeCallback(token, { value: 'again' }, { caller: ANONYMOUS }),
      ).rejects.toMatchObject({
        code: ErrorCode.REJECTED,
        message: expect.stringContaining('callback "approved" is completed already'),
      });
    }
    // Under a key no message claimed, alike: only a claimed key is let on to its outcome.
    await expect(
      door.completeCallback(
        token,
        { value: 'again' },
        { caller: ANONYMOUS, idempotencyKey: 'd-2' },
      ),
    ).rejects.toMatchObject({ code: ErrorCode.REJECTED });
    expect(h.backend.queue.counts().total).toBe(queued);
    // Under the first completion's key, another message is refused as a reuse of the key, and
    // its retry is let through: its outcome answers it.
    await expect(
      door.completeCallback(
        token,
        { value: 'other' },
        { caller: ANONYMOUS, idempotencyKey: 'd-1' },
      ),
    ).rejects.toMatchObject({ code: ErrorCode.IDEMPOTENCY_KEY_REUSED });
    await door.completeCallback(
      token,
      { value: 'yes' },
      { caller: ANONYMOUS, idempotencyKey: 'd-1' },
    );
    expect((await h.state(ref.id)) as WorkflowState).toMatchObject({ status: 'waiting' });
  });

  it('rejects in the instance’s turn the second of two completions that both passed the door while the callback waited', async () => {
    tokens.length = 0;
    const h = workflowHarness([Approval.actor]);
    const ref = await h.client.start(Approval, 'r-1', {});
    await h.runAll({ until: h.clock.now() });
    const ask = (value: string) =>
      settled(
        h.client.ask(
          Approval.ref('r-1'),
          'callback' as never,
          { token: tokens[0], ok: true, value } as never,
        ),
      );
    // Both are enqueued before the instance's turn: the door saw the callback pending for each.
    const first = ask('yes');
    const second = ask('no');
    await h.runAll({ until: h.clock.now() });
    expect(await first).toMatchObject({ ok: true });
    expect(await second).toMatchObject({
      ok: false,
      error: {
        code: ErrorCode.REJECTED,
        message: expect.stringContaining('callback "approved" is completed already'),
        details: { callback: 'approved', state: 'done' },
      },
    });
    expect((await h.state(ref.id)) as WorkflowState).toMatchObject({
      status: 'completed',
      output: 'yes',
    });
  });

  it('says a callback that timed out is settled so, not completed, when its token comes late', async () => {
    tokens.length = 0;
    const Timed = workflow({
      name: 'timed',
      input: z.object({}),
      run: async (ctx) => {
        const callback = ctx.createCallback<string>('approved', { timeoutMs: 1_000 });
        await ctx.step('ask', () => void tokens.push(callback.token));
        await callback.result.catch(() => undefined);
        await ctx.waitForEvent('end');
      },
    });
    const h = workflowHarness([Timed.actor]);
    await h.client.start(Timed, 't-1', {});
    await h.runAll({ until: h.clock.now() + 2_000 });
    await expect(
      h.door.completeCallback(tokens[0]!, { value: 'late' }, { caller: ANONYMOUS }),
    ).rejects.toMatchObject({
      code: ErrorCode.REJECTED,
      message: expect.stringMatching(/^callback "approved" is (?!completed)\w+ already/),
      details: { callback: 'approved', state: expect.not.stringMatching(/^done$/) },
    });
  });

  it('takes a token only as ctx.createCallback() spelt it: another spelling of a real one is refused', async () => {
    tokens.length = 0;
    const h = workflowHarness([Approval.actor]);
    const ref = await h.client.start(Approval, 's-1', {});
    await h.runAll({ until: h.clock.now() });
    const token = tokens[0]!;
    const parts = JSON.parse(Buffer.from(token, 'base64url').toString()) as unknown[];
    const respelt: string[] = [
      Buffer.from(JSON.stringify([...parts, 'x'])).toString('base64url'),
      Buffer.from(` ${JSON.stringify(parts)}`).toString('base64url'),
      Buffer.from(JSON.stringify(parts, null, 1)).toString('base64url'),
      `${token}=`,
    ];
    // Spelt as a token is, but of parts that are not an instance, a number and a secret.
    for (const parts of [
      [5, 0, 's'],
      ['wf-approval/s-1', 1.5, 's'],
      ['wf-approval/s-1', 0, 7],
    ]) {
      respelt.push(Buffer.from(JSON.stringify(parts)).toString('base64url'));
    }
    expect(new Set([token, ...respelt]).size).toBe(8);
    for (const other of respelt) {
      await expect(
        h.door.completeCallback(other, { value: 'no' }, { caller: ANONYMOUS }),
      ).rejects.toMatchObject({
        code: ErrorCode.INVALID_ARGUMENT,
        message: expect.stringContaining('not a workflow callback token'),
      });
    }
    await h.door.completeCallback(token, { value: 'yes' }, { caller: ANONYMOUS });
    await h.runAll({ until: h.clock.now() });
    expect((await h.state(ref.id)) as WorkflowState).toMatchObject({ status: 'completed' });
  });

  it('refuses a forged token to a public workflow at the door, saying it names no pending callback', async () => {
    const Open = workflow({
      name: 'open',
      input: z.object({}),
      public: true,
      run: async (ctx) => ctx.createCallback<string>('paid').result,
    });
    const h = workflowHarness([Open.actor]);
    const ref = await h.client.start(Open, 'o-1', {});
    await h.runAll({ until: h.clock.now() });
    expect(await refusal(h.door, 'wf-open', 'o-1', forge(ref.id, 0))).toMatch(
      /^FORBIDDEN: not a pending callback of this workflow instance/,
    );
    // A host checks a request before it waits for its outcome: the check refuses it alike,
    // and enqueues nothing.
    const queued = h.backend.queue.counts().total;
    const checked = h.door.check(
      ref,
      'callback',
      { token: forge(ref.id, 0), ok: true },
      {
        caller: ANONYMOUS,
      },
    );
    await expect(checked).rejects.toMatchObject({ code: ErrorCode.FORBIDDEN });
    expect(h.backend.queue.counts().total).toBe(queued);
  });
});

describe("a query that reads a workflow instance's state", () => {
  it("reads it without its callbacks' secrets, which would let any reader complete them", async () => {
    tokens.length = 0;
    const h = workflowHarness([Internal.actor]);
    const ref = await h.client.start(Internal, 'q-1', {});
    await h.runAll({ until: h.clock.now() });
    const stored = (await h.state(ref.id)) as WorkflowState;
    const secret = stored.journal.find((entry) => entry.kind === 'callback')?.secret;
    expect(secret).toMatch(/.{16}/);
    const peek = query({
      name: 'peek',
      args: z.object({ id: z.string() }),
      handler: async (ctx, { id }) => ctx.get(Internal.ref(id)),
    });
    const env = { registry: new Registry([Internal.actor]), store: h.backend.store };
    const { outcome } = await evaluateQuery(peek, { id: 'q-1' }, undefined, env);
    if (!outcome.ok) throw outcome.error;
    expect(outcome.text).not.toContain(secret);
    const read = JSON.parse(outcome.text) as WorkflowState;
    expect(read.journal.map(({ seq, kind }) => ({ seq, kind }))).toEqual(
      stored.journal.map(({ seq, kind }) => ({ seq, kind })),
    );
    expect(read.journal.find((entry) => entry.kind === 'callback')).not.toHaveProperty('secret');
  });
});
