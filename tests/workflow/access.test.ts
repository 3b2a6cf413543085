/**
 * Who may start, signal, cancel and read a workflow: an internal workflow only trusted code;
 * a public one whoever its `authorize` lets through, at every door. The run sees its starter as
 * `ctx.caller`; a callback needs only its token. The built-in queries read status and history.
 */
import {
  ANONYMOUS,
  actor,
  type Caller,
  defineApp,
  ErrorCode,
  type QueryContext,
  workflow,
} from '@baton/core';
import { authorizeQuery, unknownQuery } from '@baton/core/adapter';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { Greeter } from './greeter.ts';
import { workflowHarness } from './harness.ts';

const alice: Caller = { kind: 'user', identity: { userId: 'alice' } };
const bob: Caller = { kind: 'user', identity: { userId: 'bob' } };
const Internal = workflow({
  name: 'internal',
  input: z.object({}),
  run: async () => 'done',
});

function clients() {
  const { actors } = defineApp({ workflows: [Internal, Greeter] });
  const h = workflowHarness(actors);
  return { h, outside: h.door };
}

describe('who may call a workflow', () => {
  it('refuses every outside caller an internal workflow, and lets trusted code through', async () => {
    const { h, outside } = clients();
    // Refused as a type that does not exist would be: its name, and its callback, unsaid.
    await expect(outside.start(Internal, 'i', {})).rejects.toMatchObject({
      code: ErrorCode.FORBIDDEN,
      message: expect.stringMatching(
        /^no actor type "wf-internal" takes messages from clients \(types that do: wf-greeter\): one clients send to is among the app's actors, with a public handler; /,
      ),
    });
    // The anonymous client of trusted code is told how to start it.
    await expect(outside.start(Internal, 'i', {})).rejects.toMatchObject({
      message: expect.stringMatching(/client\.asSystem\(\)\.start\(…\).*public: true/),
    });
    // A user is told the rule, in the words a workflow the app does not have gets too.
    const rule =
      'a client starts, signals and reads only a workflow declared with public: true, whose authorize lets it';
    const Ghost = workflow({ name: 'ghost', input: z.object({}), run: async () => 'boo' });
    for (const definition of [Internal, Ghost]) {
      const refused = await outside.start(definition, 'i', {}, { caller: alice }).catch((e) => e);
      expect(refused.message).toMatch(
        new RegExp(`^no actor type "wf-${definition.name}".*; ${rule}$`),
      );
    }
    // Reading it through the workflows' queries, as `useWorkflow` does, says the same.
    const app = defineApp({ workflows: [Internal, Greeter] });
    const history = app.queries.find((q) => q.name === 'workflowHistory')!;
    expect(() => authorizeQuery(history, alice, { workflow: 'internal', id: 'i' })).toThrow(
      `not allowed: this caller may not subscribe to "workflowHistory" with these args; ${rule}`,
    );
    const none = defineApp({ workflows: [Internal] }).queries;
    expect(none.some((q) => q.name === 'workflowHistory' && q.public)).toBe(false);
    expect(unknownQuery('workflowHistory', []).message).toContain(`(${rule})`);
    await expect(outside.start(Internal, 'i', {}, { caller: alice })).rejects.toMatchObject({
      code: ErrorCode.FORBIDDEN,
    });
    await expect(outside.result(Internal.ref('i'), { caller: alice })).rejects.toMatchObject({
      code: ErrorCode.FORBIDDEN,
    });
    const ref = await h.client.start(Internal, 'i', {});
    await h.runAll();
    expect(await h.client.result(ref)).toBe('done');
  });

  it('lets a public workflow authorize each caller per instance, and the run sees its starter', async () => {
    const { h, outside } = clients();
    const ref = await outside.start(Greeter, 'alice:1', { greeting: 'hi' }, { caller: alice });
    await expect(
      outside.start(Greeter, 'alice:2', { greeting: 'hi' }, { caller: bob }),
    ).rejects.toMatchObject({ code: ErrorCode.FORBIDDEN });
    await expect(outside.signal(ref, 'go', null, { caller: bob })).rejects.toMatchObject({
      code: ErrorCode.FORBIDDEN,
    });
    await expect(outside.cancel(ref, { caller: ANONYMOUS })).rejects.toMatchObject({
      code: ErrorCode.FORBIDDEN,
    });
    await expect(outside.workflowStatus(ref, { caller: bob })).rejects.toMatchObject({
      code: ErrorCode.FORBIDDEN,
      message: expect.stringMatching(/may not read workflow "greeter".*declared with public: true/),
    });
    // Terminate and resume are for trusted code only.
    await expect(outside.terminate(ref, { caller: alice })).rejects.toMatchObject({
      code: ErrorCode.FORBIDDEN,
    });
    await outside.signal(ref, 'go', null, { caller: alice });
    await h.runAll();
    expect(await outside.result(ref, { caller: alice })).toBe('hi, alice');
  });
});

describe("a public workflow's authorize of a signal", () => {
  it('is asked only about the events the workflow declares: another is refused before it', async () => {
    const asked: string[] = [];
    const Approval = workflow({
      name: 'approval',
      input: z.object({}),
      events: { approve: z.object({}) },
      public: true,
      authorize: (_caller, request) => {
        if (request.action === 'signal') asked.push(request.event);
        return true;
      },
      run: async (ctx) => {
        await ctx.waitForEvent('approve');
        return 'approved';
      },
    });
    const { actors } = defineApp({ workflows: [Approval] });
    const h = workflowHarness(actors);
    const ref = await h.door.start(Approval, 'a', {}, { caller: alice });
    await expect(
      h.door.signal(ref, 'aprove' as never, {} as never, { caller: alice }),
    ).rejects.toMatchObject({ code: ErrorCode.INVALID_PAYLOAD });
    await h.door.signal(ref, 'approve', {}, { caller: alice });
    await h.runAll();
    expect(asked).toEqual(['approve']);
    expect(await h.client.result(ref)).toBe('approved');
  });
});

describe('the reply of start, signal and cancel', () => {
  /** A review: its author alone may read it; any signed-in colleague may approve it. */
  const Review = workflow({
    name: 'review',
    input: z.object({ note: z.string() }),
    public: true,
    authorize: (caller, request) => {
      if (caller.kind !== 'user') return false;
      if (request.action === 'signal') return true;
      return request.id.startsWith(`${(caller.identity as { userId: string }).userId}-`);
    },
    run: async (ctx, { note }) => {
      await ctx.waitForEvent('approve');
      return { verdict: `private: ${note}` };
    },
  });

  it('is the instance’s summary only to a caller who may read it', async () => {
    const { actors } = defineApp({ workflows: [Review] });
    const h = workflowHarness(actors);
    const { door } = h;
    const ref = await door.start(Review, 'alice-1', { note: 'raise 12%' }, { caller: alice });
    await h.runAll();
    const ask = async (caller: Caller) => {
      const asked = door.ask(ref as never, 'signal' as never, { name: 'approve' } as never, {
        caller,
      });
      // A refusal settles it while the work runs: the caller's await below still sees it.
      asked.catch(() => {});
      await new Promise((resolve) => setImmediate(resolve));
      await h.runAll();
      return asked;
    };
    // Bob may approve, and is told no more than the id of what he approved.
    expect(await ask(bob)).toEqual({ id: 'alice-1' });
    await expect(door.workflowStatus(ref, { caller: bob })).rejects.toMatchObject({
      code: ErrorCode.FORBIDDEN,
    });
    // Alice, who may read it, gets its summary (the instance ended with Bob's approval).
    const started = door.ask(
      ref as never,
      'start' as never,
      { input: { note: 'raise 12%' } } as never,
      {
        caller: alice,
      },
    );
    await new Promise((resolve) => setImmediate(resolve));
    await h.runAll();
    expect(await started).toMatchObject({
      id: 'alice-1',
      status: 'completed',
      output: { verdict: 'private: raise 12%' },
    });
    // Her approval comes after the end: refused, naming its status to her, not to Bob.
    await expect(ask(alice)).rejects.toMatchObject({
      code: ErrorCode.REJECTED,
      details: { id: 'alice-1', event: 'approve', status: 'completed' },
    });
    await expect(ask(bob)).rejects.toMatchObject({ details: { id: 'alice-1', event: 'approve' } });
    await expect(ask(bob)).rejects.not.toHaveProperty('details.status');
  });

  it('is given, without the summary, when the workflow’s authorize throws for a read', async () => {
    // Written for starts alone: a read has no input, and the check throws. The door counts a
    // throw as a refusal; so does the start's reply, inside its turn, which it used to fail.
    const Order = workflow({
      name: 'order',
      input: z.object({ owner: z.string() }),
      public: true,
      authorize: (caller, request) =>
        caller.kind === 'user' &&
        (request as { input: { owner: string } }).input.owner ===
          (caller.identity as { userId: string }).userId,
      run: async () => 'placed',
    });
    const { actors } = defineApp({ workflows: [Order] });
    const h = workflowHarness(actors);
    const { door } = h;
    const asked = door.ask(
      Order.ref('o-1') as never,
      'start' as never,
      { input: { owner: 'alice' } } as never,
      { caller: alice },
    );
    await new Promise((resolve) => setImmediate(resolve));
    await h.runAll();
    expect(await asked).toEqual({ id: 'o-1' });
    expect(await h.client.result(Order.ref('o-1'))).toBe('placed');
  });
});

describe('reading an instance from outside', () => {
  it('checks the instance a ref’s id names, whatever its type and key say', async () => {
    const { h, outside } = clients();
    await h.client.start(Internal, 'payroll', {});
    await h.runAll();
    // A ref is plain JSON: one of alice's own instances, with the id of an internal one.
    const forged = { ...Greeter.ref('alice:1'), id: Internal.ref('payroll').id };
    await expect(outside.workflowStatus(forged, { caller: alice })).rejects.toMatchObject({
      code: ErrorCode.FORBIDDEN,
      message: expect.stringContaining('"internal" instance payroll'),
    });
    await expect(outside.result(forged, { caller: alice })).rejects.toMatchObject({
      code: ErrorCode.FORBIDDEN,
    });
    expect(await h.client.workflowStatus(forged)).toMatchObject({ status: 'completed' });
  });
});

describe('an actor starting a workflow', () => {
  it('starts it with a message, and the run sees the actor as its caller', async () => {
    const Audit = workflow({
      name: 'audit',
      input: z.object({ amount: z.number() }),
      run: async (ctx, { amount }) => ({ amount, by: ctx.caller }),
    });
    const Shop = actor({
      name: 'shop',
      state: z.object({ sold: z.number() }),
      initial: () => ({ sold: 0 }),
      handlers: {
        sell: {
          payload: z.object({ amount: z.number() }),
          handle: (ctx, { amount }) => {
            ctx.state.sold += amount;
            ctx.send(Audit.ref(`sale-${ctx.state.sold}`), 'start', { input: { amount } });
          },
        },
      },
    });
    const h = workflowHarness(defineApp({ actors: [Shop], workflows: [Audit] }).actors);
    await h.client.send(Shop.ref('s'), 'sell', { amount: 5 });
    await h.runAll();
    expect(await h.client.result(Audit.ref('sale-5'))).toEqual({
      amount: 5,
      by: { kind: 'actor', actor: 'shop/s' },
    });
  });
});

describe('the workflow queries', () => {
  it('show an instance’s status and its history of commands, without callback secrets', async () => {
    const Steps = workflow({
      name: 'steps',
      input: z.object({}),
      run: async (ctx) => {
        await ctx.step('one', () => 1);
        const callback = ctx.createCallback('hook');
        await callback.result;
      },
    });
    const app = defineApp({ workflows: [Steps] });
    const h = workflowHarness(app.actors);
    const ref = await h.client.start(Steps, 's', {});
    await h.runAll();
    const [status, history] = app.queries;
    const ctx = {
      get: async (r: { id: string }) => (await h.state(r.id)) ?? { status: 'new', journal: [] },
    } as unknown as QueryContext;

    expect(await status?.handler(ctx, { workflow: 'steps', id: 's' })).toMatchObject({
      id: 's',
      status: 'waiting',
      steps: 2,
    });
    const shown = (await history?.handler(ctx, { workflow: 'steps', id: 's' })) as {
      history: Record<string, unknown>[];
    };
    expect(shown.history.map((e) => [e.kind, e.name, e.state])).toEqual([
      ['step', 'one', 'done'],
      ['callback', 'hook', 'pending'],
    ]);
    expect(shown.history[1]).not.toHaveProperty('secret');
    expect(await status?.handler(ctx, { workflow: 'steps', id: 'never' })).toMatchObject({
      status: 'new',
    });
    expect(ref.workflow).toBe('steps');
  });
});
