/**
 * What a door answers when an instance cannot take a message: a signal to an ended instance is
 * refused (REJECTED, naming its status to a caller who may read it), not answered as if taken —
 * while a retried signal that was taken before the end still answers as taken; a start of an id
 * that runs (or ran) with another input is refused at the door, before anything is enqueued, and
 * in its turn when it raced another start there.
 */
import { BatonError, ErrorCode, workflow } from '@baton/core';
import { Client } from '@baton/core/client';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { answered } from '../engine/helpers.ts';
import { Greeter, greeterIngress } from './greeter.ts';
import { workflowHarness } from './harness.ts';

const Order = workflow({
  name: 'order',
  input: z.object({ amount: z.number() }),
  events: { shipped: z.object({ tracking: z.string() }) },
  run: async (ctx, { amount }) => {
    const { tracking } = await ctx.waitForEvent('shipped');
    return { amount, tracking };
  },
});

/** Greeter's app behind the HTTP ingress, called as a user (`x-user`) with a JSON body. */
function http() {
  const { h, ingress } = greeterIngress();
  const call = async (user: string, method: string, path: string, body?: unknown) => {
    const [route, query = ''] = path.split('?');
    const response = await ingress({
      method,
      path: route!,
      query,
      headers: { 'x-user': user, 'content-type': 'application/json' },
      body: body === undefined ? '' : JSON.stringify(body),
    });
    return { status: response.statusCode, body: JSON.parse(response.body) };
  };
  return { h, call };
}

describe('a signal to an ended instance', () => {
  it('is refused, REJECTED with the status it ended with, and changes nothing', async () => {
    const h = workflowHarness([Order.actor]);
    const ref = await h.client.start(Order, 'o-1', { amount: 30 });
    await h.runAll();
    const shipped = { name: 'shipped', payload: { tracking: 'T-1' } };
    const ask = (key: string) =>
      answered(
        h,
        h.client.ask(ref as never, 'signal' as never, shipped as never, { idempotencyKey: key }),
      );
    // Taken: it ends the instance, and the answer says so.
    await expect(ask('first')).resolves.toMatchObject({ status: 'completed' });

    const late = ask('late');
    await expect(late).rejects.toMatchObject({
      code: ErrorCode.REJECTED,
      message:
        'workflow instance o-1 ended (completed) before event "shipped" came: an ended instance takes no event, so this one was not taken. Read its status, output or error (client.workflowStatus), or start another id for a new run',
      details: { id: 'o-1', event: 'shipped', status: 'completed' },
    });
    // A retry of the signal it took before it ended still answers as taken.
    await expect(ask('first')).resolves.toMatchObject({ status: 'completed' });
    // Sent (not asked), it is refused at the door, with nothing enqueued.
    await expect(h.client.signal(ref, 'shipped', { tracking: 'T-2' })).rejects.toMatchObject({
      code: ErrorCode.REJECTED,
      details: { id: 'o-1', event: 'shipped', status: 'completed' },
    });
    expect(h.backend.queue.messages()).toEqual([]);
    expect(await h.client.result(ref)).toEqual({ amount: 30, tracking: 'T-1' });
  });

  it('is refused in its turn when it was on its way as the instance ended', async () => {
    const h = workflowHarness([Order.actor]);
    const ref = await h.client.start(Order, 'o-1', { amount: 30 });
    await h.runAll();
    const first = await h.client.signal(ref, 'shipped', { tracking: 'T-1' });
    const late = await h.client.signal(ref, 'shipped', { tracking: 'T-2' });
    await h.runAll();
    expect(await h.client.outcome(first.messageId)).toMatchObject({ ok: true });
    expect(await h.client.outcome(late.messageId)).toMatchObject({
      ok: false,
      error: { code: ErrorCode.REJECTED, details: { status: 'completed' } },
    });
    expect(await h.client.result(ref)).toEqual({ amount: 30, tracking: 'T-1' });
  });

  it('keeps the refusal of a keyed one, so that its retry is refused still in a new run of the id', async () => {
    const h = workflowHarness([Order.actor]);
    const ref = await h.client.start(Order, 'o-1', { amount: 30 });
    await h.client.signal(ref, 'shipped', { tracking: 'T-1' });
    await h.runAll();
    const late = () =>
      h.client.signal(ref, 'shipped', { tracking: 'T-2' }, { idempotencyKey: 'late' });
    const refused = await late().catch((error: unknown) => error);
    expect(refused).toMatchObject({ code: ErrorCode.REJECTED });
    await h.runAll();
    // The refusal names the message its turn kept the outcome of.
    const { messageId } = (refused as { details: { messageId: string } }).details;
    expect(await h.client.outcome(messageId)).toMatchObject({
      ok: false,
      error: { code: ErrorCode.REJECTED },
    });
    // The instance halts once its retention ends, and its id runs anew.
    await h.runAll({ expire: true });
    await h.client.start(Order, 'o-1', { amount: 40 });
    await h.runAll();

    // A retry under the key is answered by the refusal its turn kept: the new run takes nothing.
    const retried = await late();
    expect(await h.client.outcome(retried.messageId)).toMatchObject({
      ok: false,
      error: { code: ErrorCode.REJECTED, details: { event: 'shipped' } },
    });
    await h.runAll();
    expect(await h.client.workflowStatus(ref)).toMatchObject({ status: 'waiting' });
    expect(((await h.state(ref.id)) as { signals: unknown[] }).signals).toEqual([]);
  });

  it('enqueues nothing when the door cannot read the instance, and says so', async () => {
    const h = workflowHarness([Order.actor]);
    const ref = await h.client.start(Order, 'o-1', { amount: 30 });
    await h.runAll();
    const down = new BatonError(ErrorCode.UNAVAILABLE, 'the table did not answer');
    const store = new Proxy(h.backend.store, {
      get(target, property) {
        const value = Reflect.get(target, property);
        if (property === 'load') return () => Promise.reject(down);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    const client = new Client({
      actors: [Order.actor],
      store,
      queue: h.backend.queue,
      clock: h.clock,
    }).asSystem();
    const sent = client.signal(ref, 'shipped', { tracking: 'T-1' }, { idempotencyKey: 'k' });
    await expect(sent).rejects.toBe(down);
    expect(h.backend.queue.messages()).toEqual([]);
  });

  it('answers a keyed retry whose first send ended the run while the retry was at the door', async () => {
    const h = workflowHarness([Order.actor]);
    const payload = { tracking: 'T-1' };
    const options = { idempotencyKey: 'ship-1' };
    /**
     * A client of `h` whose retry of the key's signal to `id` binds the key before the first
     * send is applied and reads the instance after: the first send's turn runs in between,
     * ends the run and commits its outcome.
     */
    const racing = async (id: string) => {
      const ref = await h.client.start(Order, id, { amount: 30 });
      await h.runAll();
      await h.client.signal(ref, 'shipped', payload, options);
      let raced = false;
      const store = new Proxy(h.backend.store, {
        get(target, property) {
          const value = Reflect.get(target, property);
          if (property !== 'load') return typeof value === 'function' ? value.bind(target) : value;
          return async (loaded: string) => {
            if (!raced) await h.runAll();
            raced = true;
            return target.load(loaded);
          };
        },
      });
      const client = new Client({
        actors: [Order.actor],
        store,
        queue: h.backend.queue,
        clock: h.clock,
      });
      return { ref, client: client.asSystem(), raced: () => raced };
    };
    const asking = await racing('o-1');
    const asked = asking.client.ask(
      asking.ref as never,
      'signal' as never,
      { name: 'shipped', payload } as never,
      options,
    );
    await expect(asked).resolves.toMatchObject({ status: 'completed' });
    expect(asking.raced()).toBe(true);

    const sending = await racing('o-2');
    await expect(
      sending.client.signal(sending.ref, 'shipped', payload, options),
    ).resolves.toMatchObject({ messageId: expect.any(String) });
    expect(sending.raced()).toBe(true);
    // Taken by its first send: not enqueued again.
    expect(h.backend.queue.messages()).toEqual([]);
  });

  it('names no status to a caller who may signal the instance but not read it', async () => {
    const Review = workflow({
      name: 'review',
      input: z.object({}),
      public: true,
      authorize: (caller, request) => request.action === 'signal' || caller.kind !== 'anonymous',
      run: async (ctx) => ctx.waitForEvent('approve'),
    });
    const h = workflowHarness([Review.actor]);
    const ref = await h.client.start(Review, 'r-1', {});
    await h.client.signal(ref, 'approve', null);
    await h.runAll();
    const asked = answered(
      h,
      h.door.ask(ref as never, 'signal' as never, { name: 'approve', payload: null } as never),
    );
    await expect(asked).rejects.toMatchObject({
      code: ErrorCode.REJECTED,
      message:
        'workflow instance r-1 ended before event "approve" came: an ended instance takes no event, so this one was not taken. Start another id for a new run',
      details: { id: 'r-1', event: 'approve' },
    });
    await expect(asked).rejects.not.toHaveProperty('details.status');
  });

  it('is refused over HTTP: 422 to POST /ask and to POST /send', async () => {
    const { h, call } = http();
    const to = Greeter.ref('alice:1').id;
    const go = { name: 'go', payload: null };
    await call('alice', 'POST', '/workflows/greeter/start', {
      id: 'alice:1',
      input: { greeting: 'hi' },
    });
    await h.runAll();
    const first = { to, name: 'signal', payload: go, idempotencyKey: 'go-1' };
    expect((await call('alice', 'POST', '/send', first)).status).toBe(202);
    await h.runAll();

    const asked = call('alice', 'POST', '/ask', { ...first, idempotencyKey: 'go-2' });
    await new Promise((resolve) => setImmediate(resolve));
    await h.runAll();
    expect(await asked).toMatchObject({
      status: 422,
      body: { error: { code: 'REJECTED', details: { status: 'completed', event: 'go' } } },
    });
    // Sent, it is refused at the door: 422 too, and its key keeps the refusal as its outcome.
    expect(
      await call('alice', 'POST', '/send', { ...first, idempotencyKey: 'go-3' }),
    ).toMatchObject({
      status: 422,
      body: { error: { code: 'REJECTED', details: { status: 'completed', event: 'go' } } },
    });
    await h.runAll();
    const outcome = await call('alice', 'GET', `/outcome?to=${to}&idempotencyKey=go-3`);
    expect(outcome).toMatchObject({
      status: 200,
      body: { outcome: { ok: false, error: { code: 'REJECTED' } } },
    });
    // The signal it took before it ended reads as taken still.
    const taken = await call('alice', 'GET', `/outcome?to=${to}&idempotencyKey=go-1`);
    expect(taken).toMatchObject({ status: 200, body: { outcome: { ok: true } } });
  });
});

describe('a start of an id that runs with another input', () => {
  it('is refused at the door by client.start, saying what to do, with nothing enqueued', async () => {
    const h = workflowHarness([Order.actor]);
    await h.client.start(Order, 'o-1', { amount: 30 });
    await h.runAll();
    // The same input: idempotent, accepted.
    await h.client.start(Order, 'o-1', { amount: 30 });
    await h.runAll();
    await expect(h.client.start(Order, 'o-1', { amount: 31 })).rejects.toMatchObject({
      code: ErrorCode.REJECTED,
      message:
        'workflow instance o-1 runs already (waiting), started with another input: this start was not taken. Start another id, or read (or signal) this instance',
      details: { id: 'o-1', status: 'waiting' },
    });
    expect(h.backend.queue.counts().total).toBe(0);
    // Under a key alike: only a late signal is enqueued for its outcome, never a start.
    await expect(
      h.client.start(Order, 'o-1', { amount: 32 }, { idempotencyKey: 'again-1' }),
    ).rejects.toMatchObject({ code: ErrorCode.REJECTED, details: { id: 'o-1' } });
    expect(h.backend.queue.counts().total).toBe(0);
    expect(await h.client.workflowStatus(Order.ref('o-1'))).toMatchObject({
      status: 'waiting',
    });
  });

  it('names no status to a caller who may start the instance but not read it', async () => {
    const Drop = workflow({
      name: 'drop',
      input: z.object({ box: z.string() }),
      public: true,
      authorize: (_caller, request) => request.action === 'start',
      run: async (ctx) => ctx.waitForEvent('collected'),
    });
    const h = workflowHarness([Drop.actor]);
    await h.door.start(Drop, 'd-1', { box: 'a' });
    await h.runAll();
    const refused = h.door.start(Drop, 'd-1', { box: 'b' });
    await expect(refused).rejects.toMatchObject({
      code: ErrorCode.REJECTED,
      message: 'workflow instance d-1 exists already: this start was not taken. Start another id',
      details: { id: 'd-1' },
    });
    await expect(refused).rejects.not.toHaveProperty('details.status');
    // The same input is refused alike: no answer tells a guess of the input it may not read.
    const guessed = await h.door.start(Drop, 'd-1', { box: 'a' }).catch((error) => error);
    expect(guessed).toEqual(await refused.catch((error) => error));
    // And in the turn: of two starts of the same input that passed the door before the run
    // began, the second is refused.
    const first = await h.door.send(Drop.ref('d-2'), 'start', { input: { box: 'a' } });
    const second = await h.door.send(Drop.ref('d-2'), 'start', { input: { box: 'a' } });
    await h.runAll();
    expect(await h.door.outcome(first.messageId)).toMatchObject({ ok: true });
    expect(await h.door.outcome(second.messageId)).toMatchObject({
      ok: false,
      error: {
        code: ErrorCode.REJECTED,
        message: expect.stringMatching(/^workflow instance d-2 exists already: /),
      },
    });
  });

  it('lets through a keyed retry of the start that began the run, whatever its input parses to now', async () => {
    // A default drawn at random: each parse of the same input is another input.
    const Ticket = workflow({
      name: 'ticket',
      input: z.object({ code: z.string().default(() => crypto.randomUUID()) }),
      run: async (_ctx, { code }) => code,
    });
    const h = workflowHarness([Ticket.actor]);
    const ref = await h.client.start(Ticket, 't-1', {}, { idempotencyKey: 'buy-1' });
    await h.runAll();
    const code = await h.client.result(ref);
    // The same start again, under its key: answered as taken, the run unchanged.
    await expect(h.client.start(Ticket, 't-1', {}, { idempotencyKey: 'buy-1' })).resolves.toEqual(
      ref,
    );
    expect(h.backend.queue.counts().total).toBe(0);
    // Another start: another input, refused.
    await expect(h.client.start(Ticket, 't-1', {})).rejects.toMatchObject({
      code: ErrorCode.REJECTED,
      details: { id: 't-1', status: 'completed' },
    });
    expect(await h.client.result(ref)).toBe(code);
  });

  it('is 422 at POST /workflows/<name>/start, and a start that raced another is refused in its turn, its outcome saying so', async () => {
    const { h, call } = http();
    const path = '/workflows/greeter/start';
    // Two starts before either is applied: the door cannot tell, the turn refuses the second.
    const first = await call('alice', 'POST', path, { id: 'alice:1', input: { greeting: 'hi' } });
    const raced = await call('alice', 'POST', path, { id: 'alice:1', input: { greeting: 'yo' } });
    expect([first.status, raced.status]).toEqual([202, 202]);
    await h.runAll();
    const outcome = await call(
      'alice',
      'GET',
      `/outcome/${encodeURIComponent(raced.body.messageId)}`,
    );
    expect(outcome).toMatchObject({
      status: 200,
      body: {
        outcome: {
          ok: false,
          error: {
            code: 'REJECTED',
            message: expect.stringContaining('started with another input'),
          },
        },
      },
    });

    const again = await call('alice', 'POST', path, { id: 'alice:1', input: { greeting: 'yo' } });
    expect(again).toMatchObject({
      status: 422,
      body: {
        error: {
          code: 'REJECTED',
          message:
            'workflow instance alice:1 runs already (waiting), started with another input: this start was not taken. Start another id, or read (or signal) this instance',
          details: { id: 'alice:1', status: 'waiting' },
        },
      },
    });
    expect(h.backend.queue.counts().total).toBe(0);
    // The same input again: accepted, as before.
    const same = await call('alice', 'POST', path, { id: 'alice:1', input: { greeting: 'hi' } });
    expect(same.status).toBe(202);
  });
});

describe('a keyed retry of a start that was taken, once the id has run again with another input', () => {
  const HOUR = 3_600_000;
  const Job = workflow({
    name: 'job',
    input: z.object({ n: z.number() }),
    retentionMs: HOUR,
    run: async (_ctx, { n }) => n,
  });

  it('is answered as taken by its outcome, by start and by ask, and reads nothing of the instance', async () => {
    const h = workflowHarness([Job.actor]);
    const ref = await h.client.start(Job, 'j', { n: 1 }, { idempotencyKey: 'k' });
    await h.runAll();
    expect(await h.client.result(ref)).toBe(1);
    // The instance halts its retention after it ended; the id then runs with another input.
    await h.runAll({ expire: true });
    h.clock.advance(2 * HOUR);
    await h.client.start(Job, 'j', { n: 2 });
    await h.runAll();
    expect(await h.client.result(ref)).toBe(2);

    const store = h.backend.store;
    const load = store.load.bind(store);
    let loads = 0;
    (store as { load: typeof store.load }).load = async (...args) => {
      loads++;
      return load(...args);
    };
    // The caller of k, whose first call it never heard back from, retries it.
    await expect(h.client.start(Job, 'j', { n: 1 }, { idempotencyKey: 'k' })).resolves.toEqual(ref);
    await expect(
      h.client.ask(Job.ref('j'), 'start', { input: { n: 1 } }, { idempotencyKey: 'k' }),
    ).resolves.toMatchObject({ id: 'j' });
    expect(loads).toBe(0);
  });
});
