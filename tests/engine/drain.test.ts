import { actor, Client, silentLogger } from '@baton/core';
import type { OutboxItem, Store } from '@baton/core/adapter';
import { Worker } from '@baton/core/engine';
import { EmbeddedQueue, EmbeddedStore } from '@baton/embedded';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';

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
  },
});

describe('the drain', () => {
  it('sends a warm actor’s commit as it is in hand, and reads the outbox back unless it drained every earlier send itself', async () => {
    const store = new EmbeddedStore();
    const queue = new EmbeddedQueue();
    const reads: string[] = [];
    const counting = new Proxy(store, {
      get: (target, prop) => {
        if (prop === 'readOutbox') {
          return async (actorId: string): Promise<OutboxItem[]> => {
            reads.push(actorId);
            return target.readOutbox(actorId);
          };
        }
        const value = Reflect.get(target, prop, target);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    }) as Store;
    const actors = [Relay, Sink];
    const options = { actors, store: counting, queue, logger: silentLogger };
    const client = new Client({ actors, store, queue });
    const forward = async (worker: Worker) => {
      await client.send(Relay.ref('r'), 'forward', {});
      while ((await worker.poll()) > 0);
    };
    const first = new Worker(options);

    await forward(first); // cold: it cannot know what earlier turns left
    expect(reads).toEqual(['relay/r']);
    await forward(first); // warm, and it drained every earlier send itself
    expect(reads).toEqual(['relay/r']);
    await forward(new Worker(options)); // another worker
    expect(reads).toEqual(['relay/r', 'relay/r']);
    await forward(first); // that worker sent in between: read back
    expect(reads).toEqual(['relay/r', 'relay/r', 'relay/r']);

    expect((await store.load('sink/s'))?.state).toEqual({ notes: [1, 2, 3, 4] });
    expect(store.outboxSize()).toBe(0);
  });
});
