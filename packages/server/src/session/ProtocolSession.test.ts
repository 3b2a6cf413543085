import { ANONYMOUS, actor, type BatonError, jsonLogger } from '@baton/core';
import { Client } from '@baton/core/client';
import { Worker } from '@baton/core/engine';
import { createEmbeddedBackend } from '@baton/embedded';
import type { ServerMessage } from '@baton/protocol';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { MemoryFrameCounter } from './connectionLimits.ts';
import { ProtocolSession } from './ProtocolSession.ts';
import type { SessionPorts } from './SessionPorts.ts';

/** A session of no app, for what it makes of a frame's count: its caps are `maxFramesPerSecond`'s. */
function countedSession(maxFramesPerSecond: number) {
  const backend = createEmbeddedBackend();
  const session = new ProtocolSession({
    queries: [],
    client: new Client({ actors: [], store: backend.store, queue: backend.queue }),
    clock: { now: () => 1_700_000_000_250 },
    limits: { maxSubscriptions: 10, maxFramesPerSecond, maxConnectionsPerUser: 10 },
  });
  const replies: ServerMessage[] = [];
  const closes: BatonError[] = [];
  const ports = (frames: SessionPorts['frames']): SessionPorts => ({
    reply: (frame) => void replies.push(frame),
    frames,
    close: (error) => void closes.push(error),
    subscriptions: { countBeside: () => 0, open: () => {}, close: () => {} },
    outcomes: { expect: () => ({ accepted: () => {}, cancel: () => {} }) },
  });
  const ping = (t: number) => Buffer.from(JSON.stringify({ v: 1, type: 'ping', t }));
  /** What each reply and close was: `pong <t>`, the error's code, or `closed`. */
  const seen = () => [
    ...replies.map((r) => (r.type === 'pong' ? `pong ${r.t}` : r.type === 'error' && r.error.code)),
    ...closes.map(() => 'closed'),
  ];
  return { session, ports, ping, replies, closes, seen, close: () => backend.close() };
}

const who = { identity: undefined, caller: ANONYMOUS };

const Note = actor({
  name: 'note',
  state: z.object({}),
  initial: () => ({}),
  handlers: {},
});

describe('ProtocolSession', () => {
  for (const [kind, counter] of [
    ['in memory, answering at once', () => new MemoryFrameCounter()],
    [
      'answering later, as a registry does',
      () => {
        const inner = new MemoryFrameCounter();
        return { count: async (second: number) => inner.count(second) };
      },
    ],
  ] as const) {
    it(`passes max frames of a second, refuses the next max, and closes the connection on the one after (a counter ${kind})`, async () => {
      const t = countedSession(4);
      const ports = t.ports(counter());
      for (let i = 1; i <= 10; i++) await t.session.handle(who, ports, t.ping(i), false);

      // Frames 1–4 (max) pass; 5–8 (up to 2·max) are refused; 9 (2·max + 1) closes; 10 is dropped.
      expect(t.seen()).toEqual([
        'pong 1',
        'pong 2',
        'pong 3',
        'pong 4',
        ...Array(4).fill('RATE_LIMITED'),
        'closed',
      ]);
      expect(t.closes[0]?.toJSON()).toEqual({
        code: 'RATE_LIMITED',
        message:
          'sent more than 8 frames in one second (twice the cap of 4): closed; reconnect and send fewer',
        details: { limit: 4, frames: 9 },
      });
      t.close();
    });
  }

  it('answers the first ten refused frames of a second by their numbers, those counted side by side too, and drops a frame it could not count', async () => {
    const t = countedSession(20);
    const handle = (frame: number) =>
      t.session.handle(who, t.ports({ count: async () => frame }), t.ping(frame), false);
    // Numbers as a shared count hands them to frames handled side by side, out of order.
    await Promise.all([41, 20, 31, 42, 21, 40, 30, 0].map(handle));

    // Frame 20 passes, 21 and 30 (the tenth refused) are answered; 31 (the eleventh) and 40 are
    // refused unanswered; 41 closes, once; 42 and 0 are dropped.
    expect(t.seen().sort()).toEqual(['RATE_LIMITED', 'RATE_LIMITED', 'closed', 'pong 20']);
    expect(t.closes.map((error) => error.details)).toEqual([{ limit: 20, frames: 41 }]);
    t.close();
  });

  it('handles a frame of the memory counter at once, and a close it makes at once, with no promise', () => {
    const t = countedSession(1);
    const ports = t.ports(new MemoryFrameCounter());
    const ack = Buffer.from(JSON.stringify({ v: 1, type: 'ack', id: 's1', version: 1 }));
    expect(t.session.handle(who, ports, ack, false)).toBeUndefined();
    t.session.handle(who, ports, ack, false);
    expect(t.session.handle(who, ports, ack, false)).toBeUndefined();
    expect(t.seen()).toEqual(['RATE_LIMITED', 'closed']);
    t.close();
  });

  it('answers a failure that was no Baton error without its text, which it logs', async () => {
    const backend = createEmbeddedBackend();
    const lines: string[] = [];
    const session = new ProtocolSession({
      queries: [],
      client: new Client({ actors: [Note], store: backend.store, queue: backend.queue }),
      clock: { now: () => 1_700_000_000_000 },
      limits: { maxSubscriptions: 10, maxFramesPerSecond: 10, maxConnectionsPerUser: 10 },
      logger: jsonLogger({ write: (line) => lines.push(line) }),
    });
    const replies: ServerMessage[] = [];
    const ports: SessionPorts = {
      reply: (frame) => void replies.push(frame),
      frames: new MemoryFrameCounter(),
      close: () => {},
      subscriptions: {
        countBeside: () => 0,
        open: () => {},
        close: () => {
          throw new Error('AccessDenied: arn:aws:dynamodb:eu-west-1:123456789012:table/prod');
        },
      },
      outcomes: { expect: () => ({ accepted: async () => {}, cancel: async () => {} }) },
    };
    const frame = Buffer.from(JSON.stringify({ v: 1, type: 'unsubscribe', id: 's1' }));
    await session.handle({ identity: undefined, caller: ANONYMOUS }, ports, frame, false);

    expect(replies).toEqual([
      {
        v: 1,
        type: 'error',
        error: {
          code: 'RETRYABLE',
          message: "an unexpected error; its text is in the server's log",
          details: {},
        },
      },
    ]);
    expect(lines.map((line) => JSON.parse(line))).toEqual([
      {
        level: 'error',
        message: 'a client frame failed',
        frame: 'unsubscribe',
        error: 'unexpected error: AccessDenied: arn:aws:dynamodb:eu-west-1:123456789012:table/prod',
      },
    ]);
    backend.close();
  });

  it("tells the outcome wait when the message was first sent: a retry's first send's time", async () => {
    const Counter = actor({
      name: 'counter',
      state: z.object({}),
      initial: () => ({}),
      handlers: { add: { public: true, payload: z.object({}), handle: () => {} } },
    });
    let now = 1_700_000_000_000;
    const clock = { now: () => now };
    const backend = createEmbeddedBackend({ clock });
    const client = new Client({
      actors: [Counter],
      store: backend.store,
      queue: backend.queue,
      clock,
    });
    const session = new ProtocolSession({
      queries: [],
      client,
      clock,
      limits: { maxSubscriptions: 10, maxFramesPerSecond: 10, maxConnectionsPerUser: 10 },
    });
    const told: number[] = [];
    const ports: SessionPorts = {
      reply: () => {},
      frames: new MemoryFrameCounter(),
      close: () => {},
      subscriptions: { countBeside: () => 0, open: () => {}, close: () => {} },
      outcomes: {
        expect: () => ({ accepted: (sentAt) => void told.push(sentAt), cancel: () => {} }),
      },
    };
    const ask = (requestId: string) =>
      Buffer.from(
        JSON.stringify({
          v: 1,
          type: 'ask',
          requestId,
          to: 'counter/c',
          name: 'add',
          payload: {},
          idempotencyKey: 'k-1',
        }),
      );
    await session.handle({ identity: undefined, caller: ANONYMOUS }, ports, ask('r1'), false);
    now += 60_000; // asked again a minute later, the message not yet processed
    await session.handle({ identity: undefined, caller: ANONYMOUS }, ports, ask('r2'), false);
    await new Worker({
      actors: [Counter],
      store: backend.store,
      queue: backend.queue,
      clock,
    }).poll();
    now += 60_000; // and once more, the message processed
    await session.handle({ identity: undefined, caller: ANONYMOUS }, ports, ask('r3'), false);
    expect(told).toEqual([1_700_000_000_000, 1_700_000_000_000, 1_700_000_000_000]);
    backend.close();
  });

  it('marks the message of an ask, and of a visible send, as awaited, whose caller waits for its outcome; not a plain send', async () => {
    const Counter = actor({
      name: 'counter',
      state: z.object({}),
      initial: () => ({}),
      handlers: { add: { public: true, payload: z.object({}), handle: () => {} } },
    });
    const backend = createEmbeddedBackend();
    const session = new ProtocolSession({
      queries: [],
      client: new Client({ actors: [Counter], store: backend.store, queue: backend.queue }),
      clock: { now: () => 1_700_000_000_000 },
      limits: { maxSubscriptions: 10, maxFramesPerSecond: 10, maxConnectionsPerUser: 10 },
    });
    const ports: SessionPorts = {
      reply: () => {},
      frames: new MemoryFrameCounter(),
      close: () => {},
      subscriptions: { countBeside: () => 0, open: () => {}, close: () => {} },
      outcomes: { expect: () => ({ accepted: () => {}, cancel: () => {} }) },
    };
    const frame = (type: string, idempotencyKey: string, more: object = {}) =>
      Buffer.from(
        JSON.stringify({
          v: 1,
          type,
          requestId: idempotencyKey,
          to: 'counter/c',
          name: 'add',
          payload: {},
          idempotencyKey,
          ...more,
        }),
      );
    const caller = { identity: undefined, caller: ANONYMOUS };
    await session.handle(caller, ports, frame('ask', 'asked'), false);
    await session.handle(caller, ports, frame('send', 'visible', { visible: true }), false);
    await session.handle(caller, ports, frame('send', 'sent'), false);
    const awaited = backend.queue
      .messages()
      .map((m) => JSON.parse(m.body) as { id: string; awaited?: true })
      .map((e) => [JSON.parse(e.id.slice('ingress:'.length))[1], e.awaited]);
    expect(awaited).toEqual([
      ['asked', true],
      ['visible', true],
      ['sent', undefined],
    ]);
    backend.close();
  });

  it('prepares no outcome wait for an ask or visible send its caller may not make: refused first, at no cost', async () => {
    const Vault = actor({
      name: 'vault',
      state: z.object({}),
      initial: () => ({}),
      handlers: {
        open: {
          public: true,
          payload: z.object({ pin: z.number() }),
          authorize: (caller) => caller.kind === 'user',
          handle: () => {},
        },
        audit: { payload: z.object({}), handle: () => {} },
      },
    });
    const backend = createEmbeddedBackend();
    const session = new ProtocolSession({
      queries: [],
      client: new Client({ actors: [Vault], store: backend.store, queue: backend.queue }),
      clock: { now: () => 1_700_000_000_000 },
      limits: { maxSubscriptions: 10, maxFramesPerSecond: 100, maxConnectionsPerUser: 10 },
    });
    const replies: ServerMessage[] = [];
    const expected: string[] = [];
    const ports: SessionPorts = {
      reply: (frame) => void replies.push(frame),
      frames: new MemoryFrameCounter(),
      close: () => {},
      subscriptions: { countBeside: () => 0, open: () => {}, close: () => {} },
      outcomes: {
        expect: ({ requestId }) => {
          expected.push(requestId);
          return { accepted: () => {}, cancel: () => {} };
        },
      },
    };
    const frame = (type: string, requestId: string, name: string, payload: object, more = {}) =>
      Buffer.from(
        JSON.stringify({
          v: 1,
          type,
          requestId,
          to: 'vault/v',
          name,
          payload,
          idempotencyKey: requestId,
          ...more,
        }),
      );
    const refused = [
      frame('ask', 'not-a-user', 'open', { pin: 1 }),
      frame('send', 'not-a-user-visible', 'open', { pin: 1 }, { visible: true }),
      frame('ask', 'internal', 'audit', {}),
      frame('ask', 'unknown', 'melt', {}),
      frame('ask', 'bad-payload', 'open', { pin: 'one' }),
      frame('ask', 'unknown-type', 'open', { pin: 1 }, { to: 'safe/s' }),
    ];
    for (const data of refused) {
      await session.handle({ identity: undefined, caller: ANONYMOUS }, ports, data, false);
    }
    expect(expected).toEqual([]);
    expect(replies.map((r) => r.type === 'error' && [r.requestId, r.error.code])).toEqual([
      ['not-a-user', 'FORBIDDEN'],
      ['not-a-user-visible', 'FORBIDDEN'],
      ['internal', 'FORBIDDEN'],
      ['unknown', 'FORBIDDEN'],
      ['bad-payload', 'INVALID_PAYLOAD'],
      ['unknown-type', 'FORBIDDEN'],
    ]);
    expect(backend.queue.messages()).toEqual([]);
    const user = { identity: { user: 'u' }, caller: { kind: 'user', identity: 'u' } } as const;
    await session.handle(user, ports, frame('ask', 'a-user', 'open', { pin: 1 }), false);
    expect(expected).toEqual(['a-user']);
    backend.close();
  });
});
