import { ErrorCode, jsonLogger } from '@baton/core';
import { type JsonValue, MAX_RESUME_VERSION } from '@baton/protocol';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startTestServer } from './fixtures/startTestServer.ts';
import type { TestSocket } from './fixtures/TestSocket.ts';

let t: Awaited<ReturnType<typeof startTestServer>>;
beforeEach(async () => {
  t = await startTestServer();
});
afterEach(() => t.close());

const args = { account: 'r1', size: 300 };

interface Held {
  readonly version: number;
  readonly hash: string;
  readonly value?: JsonValue;
}

/** Connects and subscribes to `padded`, resuming from `from` if given; returns the answer. */
async function connect(from?: Held) {
  const socket = await t.open({ autoAck: true });
  if (from?.value !== undefined) socket.values.set('s1', from.value);
  const resume = from && { resume: { version: from.version, hash: from.hash } };
  socket.send({ v: 1, type: 'subscribe', id: 's1', query: 'padded', args, ...resume });
  const answer = await socket.answer('s1');
  const { version, hash } = answer;
  return { socket, answer, held: { version, hash, value: socket.values.get('s1') } };
}

async function leave(socket: TestSocket) {
  socket.close();
  await socket.closed;
  await expect.poll(() => t.server.engine.stats().subscriptions).toBe(0);
}

describe('resume after a reconnect', () => {
  it('answers unchanged when the value the client holds is still current', async () => {
    const first = await connect();
    const { version, hash } = first.held;
    await leave(first.socket);
    const second = await connect(first.held);
    expect(second.answer).toEqual({ v: 1, type: 'unchanged', id: 's1', version, hash });
    // It keeps streaming: the next change comes as a patch against the value it holds.
    const b = await t.open();
    await t.deposit(b, 'r1', 5);
    expect(await second.socket.push('s1')).toMatchObject({ type: 'patch', baseVersion: version });
    expect(second.socket.values.get('s1')).toEqual({ balance: 5, padding: 'x'.repeat(300) });
  });

  it('answers a patch against the value the client holds when the value moved on', async () => {
    const first = await connect();
    const held = first.held;
    await leave(first.socket);
    const b = await t.open();
    await t.deposit(b, 'r1', 3);
    const second = await connect(held);
    expect(second.socket.values.get('s1')).toEqual({ balance: 3, padding: 'x'.repeat(300) });
    expect(second.answer).toMatchObject({ type: 'patch', baseVersion: held.version });
    expect(second.answer.version).toBeGreaterThan(held.version);
    expect(second.answer.hash).not.toBe(held.hash);
    if (second.answer.type === 'patch') {
      expect(second.answer.ops).toEqual([{ op: 'replace', path: '/balance', value: 3 }]);
    }
  });

  it('answers with the full value when the server does not know what the client holds', async () => {
    const { socket, answer } = await connect({ version: 41, hash: 'not-a-hash-we-sent' });
    expect(answer).toMatchObject({ type: 'result', value: { balance: 0 } });
    // Versions keep growing for the client, even though the instance started afresh.
    expect(answer.version).toBe(42);
    const b = await t.open();
    await t.deposit(b, 'r1', 1);
    expect((await socket.push('s1')).version).toBe(43);
  });

  it('raises a shared instance at most to MAX_RESUME_VERSION, so no client can stop its count', async () => {
    const other = await connect();
    // The last safe integer: raised to it, the instance's next version could not be counted.
    const forged = await connect({ version: Number.MAX_SAFE_INTEGER, hash: 'forged' });
    expect(forged.answer.version).toBe(MAX_RESUME_VERSION);
    const b = await t.open();
    for (const [amount, version] of [
      [2, MAX_RESUME_VERSION + 1],
      [3, MAX_RESUME_VERSION + 2],
    ] as const) {
      await t.deposit(b, 'r1', amount);
      const push = await other.socket.push('s1');
      expect(push.version).toBe(version);
      expect(Number.isSafeInteger(push.version)).toBe(true);
    }
    expect(other.socket.values.get('s1')).toMatchObject({ balance: 5 });
  });

  it('resumes against a live instance shared with another connection', async () => {
    const other = await connect();
    const first = await connect();
    await t.deposit(other.socket, 'r1', 2);
    await other.socket.push('s1');
    const second = await connect(first.held);
    expect(second.answer).toMatchObject({ type: 'patch', version: 2, baseVersion: 1 });
    expect(t.server.engine.stats().instances).toBe(1);
  });

  it('tells a client whose resume failed on the host only that it failed, and logs what it was', async () => {
    await t.close();
    const lines: Record<string, unknown>[] = [];
    t = await startTestServer({
      logger: jsonLogger({ write: (line) => lines.push(JSON.parse(line)) }),
    });
    const secret = 'connect ECONNREFUSED 10.0.0.7:5432 (user baton, password hunter2)';
    t.server.engine.resume = () => Promise.reject(new Error(secret));
    const socket = await t.open();
    socket.send({
      v: 1,
      type: 'subscribe',
      id: 's1',
      query: 'padded',
      args,
      resume: { version: 3, hash: 'held' },
    });
    const failed = await socket.next('error', (f) => f.id === 's1');
    expect(failed.error.code).toBe(ErrorCode.RETRYABLE);
    expect(JSON.stringify(failed)).not.toContain('hunter2');
    expect(lines).toContainEqual(
      expect.objectContaining({
        message: 'a subscription could not resume',
        error: expect.stringContaining(secret),
      }),
    );
  });
});
