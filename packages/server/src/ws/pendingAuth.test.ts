/**
 * Connection attempts whose app `auth` hook has not returned (a token check that is slow or
 * hangs), as a stranger makes them over loopback: they are counted (`maxPendingAuth`) and
 * timed (`authTimeoutMs`), so a hook that hangs cannot make the host hold sockets without bound.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { WebSocket } from 'ws';
import { startTestServer } from './fixtures/startTestServer.ts';
import type { AuthRequest } from './LocalServerOptions.ts';

/** `promise`, or a failure after `ms`: a wait that would hang without the bound fails fast. */
function within<T>(promise: Promise<T>, ms = 5_000): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`not settled within ${ms} ms`)), ms);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

describe('connection attempts whose auth hook has not returned', () => {
  let t: Awaited<ReturnType<typeof startTestServer>> | undefined;
  afterEach(() => t?.close());

  /** A socket opened as a stranger would, to watch how it closes (if it opens at all). */
  const attempt = (url: string, token?: string) => {
    const socket = new WebSocket(`${url}${token === undefined ? '' : `?token=${token}`}`, [
      'baton.v1',
    ]);
    socket.on('error', () => {});
    const opened = new Promise<boolean>((resolve) => {
      socket.once('open', () => resolve(true));
      socket.once('close', () => resolve(false));
    });
    const closed = new Promise<{ code: number; reason: string }>((resolve) => {
      socket.on('close', (code, reason) => resolve({ code, reason: reason.toString() }));
    });
    return { socket, opened, closed };
  };
  /**
   * An auth hook that does not settle for the token "hang" until the test settles it
   * (`release`), and records each request.
   */
  const hanging = () => {
    const requests: AuthRequest[] = [];
    const release: Array<(identity: unknown) => void> = [];
    const auth = (request: AuthRequest) => {
      requests.push(request);
      if (request.token === 'hang') return new Promise((resolve) => release.push(resolve));
      return request.token === undefined ? undefined : { userId: request.token };
    };
    return { auth, requests, release };
  };

  it('are counted: past maxPendingAuth one is closed at once (4429) without running the hook, and there is room again once they settle', async () => {
    const hook = hanging();
    t = await startTestServer({ maxPendingAuth: 3, authTimeoutMs: 60_000, auth: hook.auth });
    const url = t.server.url;
    const stuck = [attempt(url, 'hang'), attempt(url, 'hang'), attempt(url, 'hang')];
    await vi.waitFor(() => expect(hook.requests).toHaveLength(3));

    // A stranger's fourth attempt, and a user's: each is refused, its hook not run.
    for (const token of ['hang', 'alice']) {
      const refused = attempt(url, token);
      expect(await within(refused.closed)).toEqual({
        code: 4429,
        reason:
          'the server is checking the tokens of 3 connections, the most it may: try again later',
      });
    }
    expect(hook.requests).toHaveLength(3);

    // An attempt its client gave up on holds its slot until its hook settles (or times out):
    // closing sockets does not end the hooks' work.
    stuck[0]!.socket.terminate();
    await within(stuck[0]!.closed);
    expect((await within(attempt(url, 'alice').closed)).code).toBe(4429);
    expect(t.server.connections()).toEqual([]);

    // Its hook settles: there is room for one more.
    hook.release[0]!({ userId: 'gone' });
    hook.release[1]!({ userId: 'bob' });
    expect(await within(stuck[1]!.opened)).toBe(true);
    const alice = await within(t.open({ query: '?token=alice' }));
    await alice.roundTrip();
    expect(t.server.connections().map((c) => c.identity)).toEqual([
      { userId: 'bob' },
      { userId: 'alice' },
    ]);
  });

  it('are closed past authTimeoutMs (4504, "try again later"), their hook told by its signal, and their slot freed', async () => {
    const hook = hanging();
    t = await startTestServer({ maxPendingAuth: 1, authTimeoutMs: 300, auth: hook.auth });
    const url = t.server.url;
    const stuck = attempt(url, 'hang');
    await vi.waitFor(() => expect(hook.requests).toHaveLength(1));
    expect((await within(attempt(url, 'alice').closed)).code).toBe(4429);

    // The handshake completes only to say why: the client reads the code and the reason.
    expect(await within(stuck.opened)).toBe(true);
    expect(await within(stuck.closed)).toEqual({
      code: 4504,
      reason: 'the server could not check the token within 300 ms: try again later',
    });
    expect(hook.requests[0]!.signal.aborted).toBe(true);
    expect(hook.requests[0]!.signal.reason).toMatchObject({ code: 'UNAVAILABLE' });

    // Its slot is free: a user connects.
    const alice = await t.open({ query: '?token=alice' });
    await alice.roundTrip();
    expect(t.server.connections().map((c) => c.identity)).toEqual([{ userId: 'alice' }]);
  });

  it('hold 100 attempts in auth by default', async () => {
    const hook = hanging();
    t = await startTestServer({ auth: hook.auth });
    const url = t.server.url;
    for (let i = 0; i < 100; i++) attempt(url, 'hang');
    await vi.waitFor(() => expect(hook.requests).toHaveLength(100));
    const past = attempt(url, 'alice');
    expect((await within(past.closed)).code).toBe(4429);
    expect(hook.requests).toHaveLength(100);
  });

  it('end with the server: close() ends the waits, aborting the hooks, and leaves no socket', async () => {
    const hook = hanging();
    t = await startTestServer({ auth: hook.auth });
    const stuck = attempt(t.server.url, 'hang');
    await vi.waitFor(() => expect(hook.requests).toHaveLength(1));
    const closing = t.close();
    t = undefined;
    await within(closing);
    expect(await within(stuck.opened)).toBe(false);
    expect(hook.requests[0]!.signal.aborted).toBe(true);
  });
});
