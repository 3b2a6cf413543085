import { actor, silentLogger } from '@baton/core';
import {
  type Commit,
  decodeEnvelope,
  type Queue,
  type QueueMessage,
  type Store,
} from '@baton/core/adapter';
import { Client } from '@baton/core/client';
import {
  createEngine,
  drainOutbox,
  drainOutboxes,
  fireDueTimers,
  runTurn,
  sweepOutboxes,
  Worker,
} from '@baton/core/engine';
import { EmbeddedQueue, EmbeddedStore } from '@baton/embedded';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { keepingDrainedSends } from './helpers.ts';

const Sink = actor({
  name: 'sink',
  state: z.object({ notes: z.array(z.number()) }),
  initial: () => ({ notes: [] as number[] }),
  handlers: {
    note: {
      payload: z.object({ n: z.number() }),
      handle: (ctx, { n }) => {
        ctx.state.notes.push(n);
      },
    },
  },
});

const Relay = actor({
  name: 'relay',
  state: z.object({ n: z.number() }),
  initial: () => ({ n: 0 }),
  handlers: {
    forward: {
      payload: z.object({}),
      handle: (ctx) => {
        ctx.state.n++;
        ctx.send(Sink.ref('s'), 'note', { n: ctx.state.n });
      },
    },
    later: {
      payload: z.object({}),
      handle: (ctx) => {
        ctx.schedule(0, 'forward', {});
      },
    },
  },
});

/** The first commit of a new life of `relay/a` (`L2`), its one send apart. */
const newLife: Commit = {
  expectedVer: 0,
  record: {
    id: 'relay/a',
    ver: 1,
    life: 'L2',
    state: {},
    inboxOffset: '1',
    marks: {},
    sentSeq: 1,
  },
  outbox: [
    {
      actorId: 'relay/a',
      seq: 1,
      life: 'L2',
      createdAt: 0,
      envelopes: [
        {
          id: 'relay/a:L2.1',
          from: 'relay/a',
          seq: 1,
          prev: 0,
          to: 'sink/s',
          name: 'note',
          payload: { n: 1 },
          sentAt: 0,
        },
      ],
    },
  ],
  idempotency: [],
};

/**
 * A store and a queue that count outbox reads and deletes, commits holding sends, and the
 * messages sent. The store does without `heldDrained`, as DynamoDB's does: a record keeps its
 * drained sends until its next commit.
 */
function counted(store: EmbeddedStore, queue: EmbeddedQueue) {
  const calls = { readOutbox: 0, deleteOutbox: 0, sent: 0, held: 0, apart: 0 };
  const countCalls = <T extends object>(
    target: T,
    count: (prop: string, args: unknown[]) => void,
  ) =>
    new Proxy(target, {
      get: (t, prop) => {
        const value = Reflect.get(t, prop, t);
        if (typeof value !== 'function' || typeof prop !== 'string') return value;
        return (...args: unknown[]) => {
          count(prop, args);
          return value.apply(t, args);
        };
      },
    });
  return {
    calls,
    store: countCalls<Store>(keepingDrainedSends(store), (prop, [arg]) => {
      if (prop === 'readOutbox' || prop === 'deleteOutbox') calls[prop]++;
      if (prop === 'commit' && (arg as Commit).record.outbox) calls.held++;
      if (prop === 'commit' && (arg as Commit).outbox.length > 0) calls.apart++;
    }),
    queue: countCalls<Queue>(queue, (prop, [messages]) => {
      if (prop === 'send') calls.sent += (messages as QueueMessage[]).length;
    }),
  };
}

describe('the drain', () => {
  it('holds a commit’s sends in its record, and sends them again only from a worker that did not drain them itself', async () => {
    const store = new EmbeddedStore();
    const queue = new EmbeddedQueue();
    const { calls, ...ports } = counted(store, queue);
    const actors = [Relay, Sink];
    const options = { actors, ...ports, logger: silentLogger };
    const client = new Client({ actors, store, queue }).asSystem();
    const forward = async (worker: Worker) => {
      calls.sent = 0;
      await client.send(Relay.ref('r'), 'forward', {});
      while ((await worker.poll()) > 0);
      // The relay's send, and the ones a worker sent again before its commit replaced them.
      return calls.sent;
    };
    const first = new Worker(options);

    expect(await forward(first)).toBe(1); // the actor's first commit: nothing before it
    expect(calls.held).toBe(1);
    expect(await forward(first)).toBe(1); // warm: it drained the record it commits over
    expect(await forward(new Worker(options))).toBe(2); // another worker: it cannot know
    expect(await forward(first)).toBe(2); // that worker committed in between
    expect(calls).toMatchObject({ readOutbox: 0, deleteOutbox: 0, apart: 0 });

    expect((await store.load('sink/s'))?.state).toEqual({ notes: [1, 2, 3, 4] });
    expect(store.outboxSize()).toBe(1); // the last turn's, drained
  });

  it('sends nothing again for a turn that commits nothing on the record it drained itself', async () => {
    const store = new EmbeddedStore();
    const queue = new EmbeddedQueue();
    const { calls, ...ports } = counted(store, queue);
    const actors = [Relay, Sink];
    const worker = new Worker({ actors, ...ports, logger: silentLogger });
    const client = new Client({ actors, store, queue }).asSystem();
    await client.send(Relay.ref('r'), 'forward', {});
    const [message] = queue.messages();
    while ((await worker.poll()) > 0);
    expect((await store.load('relay/r'))?.outbox).toHaveLength(1); // held, drained

    // A copy of that message (the queue delivered it twice): skipped, nothing committed, and
    // the held send, which this worker drained itself, is not sent again.
    calls.sent = 0;
    await queue.send([{ ...message!, dedupeId: 'again' }]);
    while ((await worker.poll()) > 0);
    expect(calls.sent).toBe(0);
    expect((await store.load('sink/s'))?.state).toEqual({ notes: [1] });
  });

  it('drops a record’s sends once drained, on a store that can afford the write', async () => {
    const store = new EmbeddedStore();
    const queue = new EmbeddedQueue();
    const actors = [Relay, Sink];
    const client = new Client({ actors, store, queue }).asSystem();
    const options = { actors, store, queue, logger: silentLogger };
    for (const worker of [new Worker(options), new Worker(options)]) {
      await client.send(Relay.ref('r'), 'forward', {});
      while ((await worker.poll()) > 0);
      expect(await store.load('relay/r')).not.toHaveProperty('outbox');
      expect(store.outboxSize()).toBe(0);
    }
    // The second worker had nothing to send again: each note arrived once, from one send.
    expect(queue.counts()).toMatchObject({ total: 0 });
    expect((await store.load('sink/s'))?.state).toEqual({ notes: [1, 2] });
  });

  it('drains, before its messages are acked, the sends of a commit made behind a turn that commits nothing', async () => {
    const store = new EmbeddedStore();
    const queue = new EmbeddedQueue();
    const actors = [Relay, Sink];
    const client = new Client({ actors, store, queue }).asSystem();
    const engine = () =>
      createEngine({ actors, store: keepingDrainedSends(store), queue, logger: silentLogger });
    const [warm, other] = [engine(), engine()];
    const next = async () => {
      const [m] = await queue.receive({ max: 1, visibilityTimeoutMs: 30_000 });
      return { message: m!, inbound: { envelope: decodeEnvelope(m!.body)!, queueSeq: m!.seq } };
    };
    // `warm` runs the turn that schedules a timer (it sends nothing: nothing to drain).
    await client.send(Relay.ref('r'), 'later', {});
    const scheduling = await next();
    const scheduled = await runTurn(warm, 'relay/r', [scheduling.inbound]);
    const { ver } = scheduled;
    await queue.ack([scheduling.message.receipt]);
    // The timer fires. Another worker commits the fire's turn (it sends a note) and dies
    // before its drain; the fire comes back to `warm`, whose record is one version behind.
    await fireDueTimers(warm, Date.now() + 1);
    const fire = await next();
    await runTurn(other, 'relay/r', [fire.inbound]);
    const again = await runTurn(warm, 'relay/r', [fire.inbound], { drainedAt: scheduled });

    // The timer is gone, so the fire was skipped and nothing committed; but the record that
    // commit wrote was read back and its send drained: acking the fire is safe now.
    expect(again).toMatchObject({ done: 1, sent: 0, ver: ver + 1 });
    await queue.ack([fire.message.receipt]);
    const worker = new Worker({ actors, store, queue, logger: silentLogger });
    while ((await worker.poll()) > 0);
    expect((await store.load('sink/s'))?.state).toEqual({ notes: [1] });
  });

  it('writes sends that do not fit in the record apart, and reads them back before the next commit', async () => {
    // Room for the relay's record (about 230 bytes, its outcome page's state included) or its
    // send (about 200), not both; and for an outcome (about 210) beside a page's quarter, and
    // for its page item (about 380: its key again, an entry's and a page's overhead), which
    // short idempotency keys keep small.
    const store = new EmbeddedStore({ limits: { maxItemBytes: 400 } });
    const queue = new EmbeddedQueue();
    const { calls, ...ports } = counted(store, queue);
    const actors = [Relay, Sink];
    const client = new Client({ actors, store, queue }).asSystem();
    let sent = 0;
    const forward = async (worker: Worker) => {
      await client.send(Relay.ref('r'), 'forward', {}, { idempotencyKey: `f${sent++}` });
      while ((await worker.poll()) > 0);
    };
    const options = { actors, ...ports, logger: silentLogger };
    for (const worker of [new Worker(options), new Worker(options)]) {
      await forward(worker);
      await forward(worker);
    }
    const record = await store.load('relay/r');
    expect(record?.outbox).toBeUndefined();
    expect(record?.outboxApart).toBe(true);
    // Each worker deleted its items after each commit. The second one could not know that of
    // the first one's last commit, and read its items back before its first commit.
    expect(calls).toMatchObject({ readOutbox: 1, deleteOutbox: 4 });
    expect((await store.load('sink/s'))?.state).toEqual({ notes: [1, 2, 3, 4] });
    expect(store.outboxSize()).toBe(0);
  });

  it('drains several actors together: one call a round, at most one message a channel in each, in order', async () => {
    const envelope = (from: string, to: string, seq: number) => ({
      id: `${from}:${seq}`,
      from,
      seq,
      to,
      name: 'note',
      payload: { n: seq },
      sentAt: 0,
    });
    const outbox = (actorId: string, to: string, seqs: number[]) => ({
      actorId,
      held: [
        {
          actorId,
          seq: seqs[0]!,
          createdAt: 0,
          envelopes: seqs.map((n) => envelope(actorId, to, n)),
        },
      ],
      ver: 1,
      life: undefined,
      apart: [],
    });
    const outboxes = [
      outbox('relay/a', 'sink/s', [1, 2]),
      outbox('relay/b', 'sink/s', [1]),
      outbox('relay/c', 'sink/t', [1]),
    ];
    const calls: string[][] = [];
    let failFirst = true;
    const queue = {
      send: async (messages: readonly QueueMessage[]) => {
        if (failFirst) throw new Error('queue down');
        calls.push(messages.map((m) => m.dedupeId));
      },
    } as Queue;
    // A failed round sends nothing after it.
    await expect(drainOutboxes(new EmbeddedStore(), queue, outboxes)).rejects.toThrow('queue down');
    expect(calls).toEqual([]);
    failFirst = false;
    expect(await drainOutboxes(new EmbeddedStore(), queue, outboxes)).toBe(4);
    // Two senders to one sink share a call: they are two channels.
    expect(calls).toEqual([['relay/a:1', 'relay/b:1', 'relay/c:1'], ['relay/a:2']]);
  });

  it('leaves items apart of another life than its record to the sweeper on a turn’s drain', async () => {
    const store = new EmbeddedStore();
    await store.commit(newLife);
    const sent: QueueMessage[] = [];
    const queue = { send: async (messages) => void sent.push(...messages) } as Queue;
    // A worker whose warm record is of the life before, long ago: it cannot tell an ended life.
    const old = { actorId: newLife.record.id, held: [], ver: 7, life: 'L1' };
    expect(await drainOutbox(store, queue, old)).toBe(0);
    expect(await store.readOutbox(newLife.record.id)).toHaveLength(1);
    // The sweeper reads the record after them: they are the live life's.
    expect(await sweepOutboxes(store, queue, [newLife.record.id])).toMatchObject({ sent: 1 });
    expect(sent.map((m) => decodeEnvelope(m.body))).toEqual([newLife.outbox[0]!.envelopes[0]]);
  });

  it('reads an actor again, its items first, when a sweep finds items apart of another life than its record', async () => {
    const store = new EmbeddedStore();
    const id = newLife.record.id;
    // The new life's first commit comes after the sweep read no record, before it read items.
    const racing: Partial<Store> = {
      load: (actorId) => store.load(actorId),
      readOutbox: async (actorId) => {
        if (!(await store.load(actorId))) await store.commit(newLife);
        return store.readOutbox(actorId);
      },
      deleteOutbox: (actorId, seqs, life) => store.deleteOutbox(actorId, seqs, life),
    };
    const sent: QueueMessage[] = [];
    const queue = { send: async (messages) => void sent.push(...messages) } as Queue;
    expect(await sweepOutboxes(racing as Store, queue, [id])).toMatchObject({ sent: 1 });
    // Its sends are the live life's: sent as they are, not as an ended life's.
    expect(sent.map((m) => decodeEnvelope(m.body))).toEqual([newLife.outbox[0]!.envelopes[0]]);
    expect(await store.readOutbox(id)).toEqual([]);
  });
});
