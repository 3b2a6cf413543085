/**
 * `GET /outcome/<id>` of a message sent with no idempotency key: its id is a receipt, which
 * carries when it was sent and a tag only the app's doors can make. The read starts at that
 * time; an id a caller made up, to any actor, is unknown at once, with no outcome page read,
 * so neither the answer nor its time tells how busy that actor is.
 */
import { callerOf, silentLogger } from '@baton/core';
import { type Clock, ingressMessageId, type Store } from '@baton/core/adapter';
import { createEngine, Worker } from '@baton/core/engine';
import { createEmbeddedBackend, type EmbeddedBackend } from '@baton/embedded';
import { afterEach, describe, expect, it } from 'vitest';
import { Counter } from '../ws/fixtures/startTestServer.ts';
import { httpIngress } from './httpIngress.ts';

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

function backend(clock?: Clock): EmbeddedBackend {
  const made = createEmbeddedBackend(clock ? { clock } : {});
  cleanups.push(() => made.close());
  return made;
}

/**
 * A door of the app on `on`, over a store object of its own (as another Lambda has), signing
 * callers in from an `x-user` header. `reads` lists the outcome reads it made the store do, with
 * the send time each read from.
 */
function door(on: EmbeddedBackend, clock?: Clock) {
  const reads: Array<number | undefined> = [];
  const readIdempotency: Store['readIdempotency'] = (key, sentAt, options) => {
    reads.push(sentAt);
    return (on.store as Store).readIdempotency(key, sentAt, options);
  };
  const store = new Proxy(on.store, {
    get: (target, name) => {
      if (name === 'readIdempotency') return readIdempotency;
      const value = Reflect.get(target, name);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  const ingress = httpIngress({
    actors: [Counter],
    store,
    queue: on.queue,
    requireIdempotencyKey: false,
    ...(clock ? { clock } : {}),
    caller: ({ headers }) => callerOf(headers?.['x-user'] ?? 'anna'),
  });
  const call = async (
    method: 'GET' | 'POST',
    path: string,
    body = '',
    user = 'anna',
    query = '',
  ) => {
    const response = await ingress({
      method,
      path,
      body,
      query,
      headers: { 'x-user': user, 'content-type': 'application/json' },
    });
    return { status: response.statusCode, body: JSON.parse(response.body) };
  };
  const send = (to: string, by = 1) =>
    call('POST', '/send', JSON.stringify({ to, name: 'increment', payload: { by } }));
  const outcome = (id: string, user?: string, query = '') =>
    call('GET', `/outcome/${encodeURIComponent(id)}`, '', user, query);
  return { send, outcome, reads };
}

async function processAll(on: EmbeddedBackend) {
  const engine = createEngine({
    actors: [Counter],
    store: on.store,
    queue: on.queue,
    logger: silentLogger,
  });
  const worker = new Worker(engine);
  while ((await worker.poll()) > 0) {}
}

describe('an outcome read by the id of a message sent with no idempotency key', () => {
  it('starts at the send its receipt names, on any door of the app', async () => {
    const app = backend();
    const first = door(app);
    const sent = await first.send('counter/a', 2);
    expect(sent.status).toBe(202);
    await processAll(app);
    // Another door, over another store object (another Lambda), knows the receipt: the secret
    // is kept in the app's store, not in a process.
    const second = door(app);
    expect(await second.outcome(sent.body.messageId)).toEqual({
      status: 200,
      body: { outcome: { ok: true, value: 2 } },
    });
    expect(second.reads).toEqual([sent.body.sentAt]);
  });

  it('answers an id nobody was given "unknown" without reading a page, whatever the actor did', async () => {
    const app = backend();
    const { send, outcome, reads } = door(app);
    // A busy actor, and a receipt of anna's to read: its parts are what an attacker would change.
    const sent = await send('counter/busy');
    for (let i = 0; i < 20; i++) await send('counter/busy');
    await processAll(app);
    const receipt: string = sent.body.messageId;
    expect((await outcome(receipt)).status).toBe(200);
    reads.length = 0;

    const key = JSON.parse(receipt.slice('ingress:'.length))[1] as string;
    const tag = key.slice(key.lastIndexOf('.') + 1);
    const forged = [
      // A key anna made up, for the busy actor and for an idle one, scoped to anna as a read
      // must be: it passes the caller check, and has neither a receipt nor a claim.
      ingressMessageId('counter/busy', 'made-up', callerOf('anna')),
      ingressMessageId('counter/idle', 'made-up', callerOf('anna')),
      // Her receipt turned to another actor, or with another send time, or another tag.
      receipt.replace('counter/busy', 'counter/idle'),
      receipt.replace(key, `0${key}`),
      receipt.replace(tag, `${tag[0] === 'A' ? 'B' : 'A'}${tag.slice(1)}`),
    ];
    for (const id of forged) {
      expect(await outcome(id)).toMatchObject({ status: 404 });
    }
    expect(reads).toEqual([]);
    // Another caller's own id made of anna's receipt: scoped to him, it is no receipt either.
    const ben = ingressMessageId('counter/busy', key, callerOf('ben'));
    expect((await outcome(ben, 'ben')).status).toBe(404);
    expect((await outcome(receipt, 'ben')).status).toBe(404);
    expect(reads).toEqual([]);
  });

  it("reads from the receipt's send whatever sentAt a caller passes, and not at all once its outcome is gone", async () => {
    const clock = { at: Date.now(), now: () => clock.at };
    const app = backend(clock);
    const { send, outcome, reads } = door(app, clock);
    const sent = await send('counter/a');
    await processAll(app);
    // A later start would let a caller measure the pages an actor wrote in a window it chose.
    expect((await outcome(sent.body.messageId, 'anna', `sentAt=${clock.at + 1}`)).status).toBe(200);
    expect(reads).toEqual([sent.body.sentAt]);
    // Twice the retention (and an hour's clock margin) later, no outcome of it is kept.
    clock.at += 28 * 86_400_000 + 3_600_000 + 1;
    expect((await outcome(sent.body.messageId)).status).toBe(404);
    expect(reads).toEqual([sent.body.sentAt]);
  });

  it("refuses another app's receipts: each app's store keeps its own secret", async () => {
    const here = door(backend());
    const elsewhere = backend();
    const sent = await door(elsewhere).send('counter/a');
    await processAll(elsewhere);
    expect((await here.outcome(sent.body.messageId)).status).toBe(404);
    expect(here.reads).toEqual([]);
  });
});
