import { ANONYMOUS, actor, jsonLogger } from '@baton/core';
import { Client } from '@baton/core/client';
import { Worker } from '@baton/core/engine';
import { createEmbeddedBackend } from '@baton/embedded';
import type { ServerMessage } from '@baton/protocol';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { MemoryFrameCounter } from './connectionLimits.ts';
import { ProtocolSession } from './ProtocolSession.ts';
import type { SessionPorts } from './SessionPorts.ts';

const Note = actor({
  name: 'note',
  state: z.object({}),
  initial: () => ({}),
  handlers: {},
});

describe('ProtocolSession', () => {
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
