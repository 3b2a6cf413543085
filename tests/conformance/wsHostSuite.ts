/**
 * The behaviour every Baton WebSocket host owes its clients, written once and run against each
 * host (wsHostLocal.test.ts, wsHostAws.test.ts): what a malformed frame, an unknown or internal
 * name, an `authorize` refusal and a per-connection cap are answered with, the caller handlers
 * and queries see, the flow of a subscription, a send's idempotency and an ask's reply. The app
 * is wsHostApp.ts; every frame goes over a real socket, one at a time where an answer is awaited
 * (API Gateway gives no order between a connection's frames).
 */
import type { ClientMessage, ServerMessage } from '@baton/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { TestSocket } from '../../packages/server/src/ws/fixtures/TestSocket.ts';
import { LIMITS } from './wsHostApp.ts';

/** A host serving wsHostApp.ts with {@link LIMITS} on a clock that stands still. */
export interface WsHost {
  /** Where clients connect. */
  readonly url: string;
  /**
   * What the host does with a frame over 128 KiB: the local host answers MESSAGE_TOO_LARGE;
   * API Gateway closes the connection (1009) before the handler sees the frame.
   */
  readonly oversized: 'answered' | 'closed';
  stop(): Promise<void>;
}

/** Answers may take a while on a loaded machine (the emulators); nothing here is timed. */
const WAIT_MS = 30_000;

type Frame<T extends ServerMessage['type']> = Extract<ServerMessage, { type: T }>;

/** Opens a connection signed in as `user`. */
function open(host: WsHost, user: string): Promise<TestSocket> {
  return TestSocket.open(host.url, { protocols: ['baton.v1', `token.${user}`], autoAck: true });
}

/** Sends a frame and waits for the error it is answered with. */
async function refusal(socket: TestSocket, frame: ClientMessage | string): Promise<Frame<'error'>> {
  socket.send(frame);
  return socket.next('error', () => true, WAIT_MS);
}

function send(to: string, name: string, payload: unknown, requestId: string, key = requestId) {
  return { v: 1, type: 'send', requestId, to, name, payload, idempotencyKey: key } as const;
}

function ask(to: string, name: string, payload: unknown, requestId: string) {
  return { v: 1, type: 'ask', requestId, to, name, payload, idempotencyKey: requestId } as const;
}

function subscribe(id: string, query: string, args: unknown) {
  return { v: 1, type: 'subscribe', id, query, args } as const;
}

/** Asks and returns the reply's value. */
async function asked(socket: TestSocket, frame: ReturnType<typeof ask>): Promise<unknown> {
  socket.send(frame);
  const answer = await Promise.race([
    socket.next('reply', (f) => f.requestId === frame.requestId, WAIT_MS),
    socket.next('error', (f) => f.requestId === frame.requestId, WAIT_MS),
  ]);
  if (answer.type === 'error') throw new Error(`ask refused: ${answer.error.message}`);
  return answer.value;
}

/** Polls `check` until it holds (a wait, not a timed assertion). */
async function until(check: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + WAIT_MS;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Runs the host conformance suite against the host `start` starts. */
export function wsHostSuite(name: string, start: () => Promise<WsHost>): void {
  describe(`${name}: the WebSocket host conformance suite`, () => {
    let host: WsHost;
    const sockets: TestSocket[] = [];
    const connect = async (user: string) => {
      const socket = await open(host, user);
      sockets.push(socket);
      return socket;
    };

    beforeAll(async () => {
      host = await start();
    }, 120_000);

    afterAll(async () => {
      for (const socket of sockets) socket.close();
      await host?.stop();
    });

    it('refuses a connection without a token, or with one the app’s auth refuses, before it can send anything, telling it only "unauthorized"', async () => {
      for (const protocols of [['baton.v1'], ['baton.v1', 'token.intruder']]) {
        const socket = new WebSocket(host.url, protocols);
        const received: string[] = [];
        socket.on('message', (data) => received.push(String(data)));
        // The local host closes the socket with 4401; API Gateway refuses the upgrade with 401.
        // Either way the reason is not the app's error ("sign in with a valid token").
        const outcome = await new Promise<string>((resolve) => {
          socket.once('close', (code, reason) => resolve(`closed ${code} ${reason}`));
          socket.once('unexpected-response', (request, response) => {
            let body = '';
            response.on('data', (chunk) => {
              body += String(chunk);
            });
            response.once('end', () => {
              resolve(`status ${response.statusCode} ${body}`);
              request.destroy();
            });
          });
          socket.on('error', () => {});
          socket.once('open', () => socket.send(JSON.stringify({ v: 1, type: 'ping', t: 1 })));
        });
        expect(['closed 4401 unauthorized', 'status 401 unauthorized']).toContain(outcome);
        expect(received).toEqual([]);
      }
    });

    it('answers each malformed frame with INVALID_PAYLOAD, naming the reason and the request, and keeps serving the connection', async () => {
      const a = await connect('mel');
      const cases: [string, string, { id?: string; requestId?: string }][] = [
        ['not json', 'NOT_JSON', {}],
        ['[1,2]', 'NOT_AN_OBJECT', {}],
        ['{"v":2,"type":"ping","t":1}', 'UNSUPPORTED_VERSION', {}],
        ['{"v":1,"type":"result","id":"w"}', 'UNKNOWN_TYPE', {}],
        ['{"v":1,"type":"subscribe","id":"s9","query":5,"args":{}}', 'INVALID_FIELD', { id: 's9' }],
        [
          '{"v":1,"type":"send","requestId":"r9","to":"counter/a"}',
          'INVALID_FIELD',
          { requestId: 'r9' },
        ],
      ];
      for (const [text, reason, target] of cases) {
        const error = await refusal(a, text);
        expect({ text, code: error.error.code, reason: error.error.details?.reason }).toEqual({
          text,
          code: 'INVALID_PAYLOAD',
          reason,
        });
        expect({ id: error.id, requestId: error.requestId }).toEqual(target);
      }
      a.socket.send(Buffer.from('{"v":1,"type":"ping","t":1}'), { binary: true });
      expect((await a.next('error', () => true, WAIT_MS)).error.message).toMatch(/binary/);
      a.send({ v: 1, type: 'ping', t: 7 });
      expect((await a.next('pong', () => true, WAIT_MS)).t).toBe(7);
    });

    it('refuses a frame over 128 KiB without applying it', async () => {
      const a = await connect('ola');
      const big = send('counter/ola', 'add', { by: 1, pad: 'é'.repeat(70_000) }, 'big');
      a.send(big);
      if (host.oversized === 'answered') {
        const error = await a.next('error', () => true, WAIT_MS);
        expect(error.error).toMatchObject({
          code: 'MESSAGE_TOO_LARGE',
          details: { reason: 'FRAME_TOO_LARGE', limit: 131_072 },
        });
        expect(error.requestId).toBeUndefined();
      } else {
        expect((await a.closed).code).toBe(1009);
      }
      const b = await connect('ola');
      expect(await asked(b, ask('counter/ola', 'messages', {}, 'big-check'))).toBe(0);
    });

    it('refuses an unknown actor type, an unknown message and an unknown query, naming only public names', async () => {
      const a = await connect('una');
      const actor = await refusal(a, send('planet/x', 'add', { by: 1 }, 'u1'));
      expect(actor.requestId).toBe('u1');
      expect(actor.error.code).toBe('FORBIDDEN');
      expect(actor.error.message).toContain('planet');
      for (const type of ['send', 'ask'] as const) {
        const frame = { ...send('counter/una', 'mint', {}, `u-${type}`), type };
        const unknown = await refusal(a, frame);
        expect(unknown.requestId).toBe(`u-${type}`);
        expect(unknown.error.code).toBe('FORBIDDEN');
        expect(unknown.error.message).toContain('mint');
        expect(unknown.error.message).not.toContain('reset');
      }
      const query = await refusal(a, subscribe('q1', 'nope', { counter: 'una' }));
      expect(query.id).toBe('q1');
      expect(query.error.code).toBe('FORBIDDEN');
      expect(query.error.message).toContain('nope');
      expect(query.error.message).not.toContain('rawCount');
    });

    it('refuses an internal handler and an internal query with FORBIDDEN, applying nothing', async () => {
      const a = await connect('ida');
      for (const frame of [
        send('counter/ida', 'reset', {}, 'i1'),
        ask('counter/ida', 'reset', {}, 'i2'),
      ]) {
        const error = await refusal(a, frame);
        expect(error.requestId).toBe(frame.requestId);
        expect(error.error.code).toBe('FORBIDDEN');
        expect(error.error.message).toContain('"reset"');
      }
      const query = await refusal(a, subscribe('q2', 'rawCount', { counter: 'ida' }));
      expect({ id: query.id, code: query.error.code }).toEqual({ id: 'q2', code: 'FORBIDDEN' });
      expect(await asked(a, ask('counter/ida', 'messages', {}, 'i3'))).toBe(0);
    });

    it('refuses what `authorize` refuses with FORBIDDEN, and lets the owner through', async () => {
      const mallory = await connect('mallory');
      const handler = await refusal(mallory, send('counter/alice', 'own', { by: 9 }, 'a1'));
      expect({ requestId: handler.requestId, code: handler.error.code }).toEqual({
        requestId: 'a1',
        code: 'FORBIDDEN',
      });
      const query = await refusal(mallory, subscribe('a2', 'ownCount', { counter: 'alice' }));
      expect({ id: query.id, code: query.error.code }).toEqual({ id: 'a2', code: 'FORBIDDEN' });
      const alice = await connect('alice');
      expect(await asked(alice, ask('counter/alice', 'own', { by: 2 }, 'a3'))).toBe(2);
      alice.send(subscribe('a4', 'ownCount', { counter: 'alice' }));
      await alice.push('a4', WAIT_MS);
      expect(alice.values.get('a4')).toBe(2);
    });

    it('tells handlers and queries the connection’s caller: the identity the app’s auth returned', async () => {
      const a = await connect('wes');
      const caller = { kind: 'user', identity: { user: 'wes' } };
      expect(await asked(a, ask('counter/someone', 'whoami', {}, 'w1'))).toEqual(caller);
      a.send(subscribe('w2', 'whoami', {}));
      await a.push('w2', WAIT_MS);
      expect(a.values.get('w2')).toEqual(caller);
    });

    it(`refuses a subscription past ${LIMITS.maxSubscriptions} on one connection with LIMIT_EXCEEDED, and has room again after an unsubscribe`, async () => {
      const a = await connect('lim');
      for (const id of ['l1', 'l2']) {
        a.send(subscribe(id, 'count', { counter: id }));
        await a.push(id, WAIT_MS);
      }
      const refused = await refusal(a, subscribe('l3', 'count', { counter: 'l3' }));
      expect(refused.id).toBe('l3');
      expect(refused.error.code).toBe('LIMIT_EXCEEDED');
      expect(refused.error.message).toContain(`holds ${LIMITS.maxSubscriptions} subscriptions`);
      a.send({ v: 1, type: 'unsubscribe', id: 'l1' });
      a.send(subscribe('l3', 'count', { counter: 'l3' }));
      expect((await a.push('l3', WAIT_MS)).type).toBe('result');
    });

    it(`answers frames past ${LIMITS.maxFramesPerSecond} in one second with RATE_LIMITED, dropping them`, async () => {
      const a = await connect('rat');
      const sent = LIMITS.maxFramesPerSecond + 5;
      for (let t = 0; t < sent; t++) a.send({ v: 1, type: 'ping', t });
      const answers = () => a.frames.filter((f) => f.type === 'pong' || f.type === 'error');
      await until(() => answers().length >= sent, 'an answer to every ping');
      const pongs = a.frames.filter((f) => f.type === 'pong');
      const limited = a.frames.filter((f) => f.type === 'error');
      expect(pongs).toHaveLength(LIMITS.maxFramesPerSecond);
      expect(limited).toHaveLength(5);
      for (const frame of limited) {
        expect(frame.type === 'error' && frame.error.code).toBe('RATE_LIMITED');
        // The clock stands 400 ms into a second.
        expect(frame.type === 'error' && frame.error.message).toContain('after 600 ms');
      }
    });

    it(`closes a connection that sends more than ${2 * LIMITS.maxFramesPerSecond} frames in one second, telling it why`, async () => {
      const max = LIMITS.maxFramesPerSecond;
      const a = await connect('flo');
      for (let t = 0; t < 2 * max + 6; t++) a.send({ v: 1, type: 'ping', t });
      const { code, reason } = await a.closed;
      const why = `sent more than ${2 * max} frames in one second (twice the cap of ${max}): closed; reconnect and send fewer`;
      // The local host closes with 1008 and says why in the reason; API Gateway sends no close
      // code of the server's (its DeleteConnection closes with 1000), so it says why in an
      // error frame before the close.
      const told =
        code === 1008
          ? [reason]
          : a.frames.flatMap((f) => (f.type === 'error' && f.error.message === why ? [why] : []));
      expect([1000, 1008]).toContain(code);
      expect(told).toEqual([why]);
      // The first max frames passed; of the max refused, the first ten were answered.
      expect(a.frames.filter((f) => f.type === 'pong')).toHaveLength(max);
      const refused = a.frames.filter((f) => f.type === 'error' && f.error.message !== why);
      expect(refused.map((f) => f.type === 'error' && f.error.code)).toEqual(
        Array(10).fill('RATE_LIMITED'),
      );
    });

    it('pushes a subscription its first result and each change, and nothing after an unsubscribe', async () => {
      const a = await connect('sam');
      a.send(subscribe('s1', 'count', { counter: 'sam' }));
      a.send(subscribe('s2', 'count', { counter: 'sam' }));
      await Promise.all([a.push('s1', WAIT_MS), a.push('s2', WAIT_MS)]);
      expect([a.values.get('s1'), a.values.get('s2')]).toEqual([0, 0]);
      await asked(a, ask('counter/sam', 'add', { by: 5 }, 'p1'));
      await Promise.all([a.push('s1', WAIT_MS), a.push('s2', WAIT_MS)]);
      expect([a.values.get('s1'), a.values.get('s2')]).toEqual([5, 5]);

      a.send({ v: 1, type: 'unsubscribe', id: 's1' });
      await asked(a, ask('counter/sam', 'add', { by: 1 }, 'p2'));
      await a.push('s2', WAIT_MS);
      await a.roundTrip();
      expect(a.values.get('s2')).toBe(6);
      expect(a.values.get('s1')).toBe(5);
      expect(a.unread().filter((f) => 'id' in f && f.id === 's1')).toEqual([]);
    });

    it('applies a send re-sent with the same idempotency key once, answering both with one message id', async () => {
      const a = await connect('ivy');
      const ids: string[] = [];
      for (const requestId of ['k1', 'k2']) {
        a.send(send('counter/ivy', 'add', { by: 3 }, requestId, 'same-key'));
        ids.push((await a.next('accepted', (f) => f.requestId === requestId, WAIT_MS)).messageId);
      }
      expect(ids[0]).toEqual(ids[1]);
      // Asked after both sends, to the same actor: answered once both were processed.
      expect(await asked(a, ask('counter/ivy', 'messages', {}, 'k3'))).toBe(1);
      const b = await connect('ivy');
      b.send(subscribe('c', 'count', { counter: 'ivy' }));
      await b.push('c', WAIT_MS);
      expect(b.values.get('c')).toBe(3);
    });

    it('answers an ask with accepted and then the handler’s value', async () => {
      const a = await connect('ada');
      a.send(ask('counter/ada', 'add', { by: 4 }, 'q'));
      const reply = await a.next('reply', () => true, WAIT_MS);
      const mine = a.frames.filter((f) => 'requestId' in f && f.requestId === 'q');
      expect(mine).toEqual([
        { v: 1, type: 'accepted', requestId: 'q', messageId: expect.any(String) },
        { v: 1, type: 'reply', requestId: 'q', value: 4 },
      ]);
      expect(reply.value).toBe(4);
    });
  });
}
