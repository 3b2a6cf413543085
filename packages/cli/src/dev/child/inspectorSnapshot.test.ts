/**
 * What holds an actor, in the dev inspector's snapshot (on the embedded backend, as `baton dev`
 * runs it): the paused actors, oldest pause first, with the messages parked for each (which are
 * no dead letters) and at most MAX_PAUSED of them listed; and an actor's failing message.
 */
import { actor, defineApp, silentLogger } from '@baton/core';
import { Client } from '@baton/core/client';
import { createEngine, pauseActor, Worker } from '@baton/core/engine';
import { afterEach, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { MAX_PAUSED } from '../inspector/InspectorSnapshot.ts';
import type { DevBackend } from './DevBackend.ts';
import { embeddedBackend } from './embeddedBackend.ts';
import { inspectorSnapshot } from './inspectorSnapshot.ts';
import { TurnLog } from './TurnLog.ts';

const Note = actor({
  name: 'note',
  state: z.object({ entries: z.array(z.string()) }),
  initial: () => ({ entries: [] as string[] }),
  handlers: {
    add: {
      public: true,
      payload: z.object({ entry: z.string() }),
      handle: (ctx, { entry }) => {
        if (entry === 'poison') throw new Error('the poison entry breaks add');
        ctx.state.entries.push(entry);
      },
    },
  },
});
const app = defineApp({ actors: [Note] });

const opened: DevBackend[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((backend) => backend.close()));
});

function running() {
  const backend = embeddedBackend({});
  opened.push(backend);
  const engine = createEngine({
    actors: app.actors,
    store: backend.store,
    queue: backend.queue,
    logger: silentLogger,
  });
  const worker = new Worker(engine);
  const client = new Client({
    actors: app.actors,
    store: backend.store,
    queue: backend.queue,
  }).asSystem();
  const snapshot = () =>
    inspectorSnapshot({
      app,
      backend,
      turns: new TurnLog(),
      startedAt: 0,
      server: () => undefined,
    });
  /** Polls until nothing is receivable now (a failed message waits out its retry delay). */
  const work = async () => {
    while ((await worker.poll()) > 0);
  };
  return { backend, client, snapshot, work };
}

describe("the dev inspector's snapshot of what holds an actor", () => {
  it('lists the paused actors with their parked messages, and an actor’s failing message', async () => {
    const { backend, client, snapshot, work } = running();
    const odd = Note.ref('<script>alert(1)</script>');
    await client.send(Note.ref('fine'), 'add', { entry: 'a' });
    await client.send(Note.ref('failing'), 'add', { entry: 'a' });
    const poison = await client.send(Note.ref('failing'), 'add', { entry: 'poison' });
    await work();
    await pauseActor(backend.store, backend.queue, odd.id, { by: '<b>ops</b>', now: 1_000 });
    await pauseActor(backend.store, backend.queue, 'note/fine', { by: 'ops', now: 2_000 });
    await client.send(Note.ref('fine'), 'add', { entry: 'held' });
    await work();

    const s = await snapshot();
    expect(s.pausedActors).toEqual([
      { id: odd.id, at: 1_000, by: '<b>ops</b>', parked: 0 },
      { id: 'note/fine', at: 2_000, by: 'ops', parked: 1 },
    ]);
    expect(s.pausedCount).toBe(2);
    // The parked message waits for the resume: it is no dead letter.
    expect(s.deadLetters).toEqual([]);
    expect(s.depths.deadLetters).toBe(0);

    const byId = new Map(s.actors.map((a) => [a.id, a]));
    expect(byId.get('note/fine')).toMatchObject({ paused: { at: 2_000, by: 'ops' } });
    expect(byId.get('note/fine')?.failing).toBeUndefined();
    const failing = byId.get('note/failing');
    expect(failing?.state).toEqual({ entries: ['a'] });
    expect(failing?.paused).toBeUndefined();
    expect(failing?.failing).toEqual({
      messageId: poison.messageId,
      inboxPosition: expect.any(String),
      attempts: 1,
      since: expect.any(Number),
      handler: 'add',
      error: { code: expect.stringMatching(/^[A-Z_]+$/), message: expect.any(String) },
      ended: null,
    });
    // The message it stops at is behind what it applied.
    expect(BigInt(failing!.failing!.inboxPosition)).toBeGreaterThan(BigInt(failing!.inboxOffset));
  });

  it(`lists the first ${MAX_PAUSED} paused actors, oldest pause first, and counts them all`, async () => {
    const { backend, snapshot } = running();
    const total = MAX_PAUSED + 3;
    for (let i = 0; i < total; i++) {
      await pauseActor(backend.store, backend.queue, `note/n${i}`, { by: 'ops', now: total - i });
    }
    const s = await snapshot();
    expect(s.pausedCount).toBe(total);
    expect(s.pausedActors).toHaveLength(MAX_PAUSED);
    expect(s.pausedActors[0]).toMatchObject({ id: `note/n${total - 1}`, at: 1 });
  });
});
