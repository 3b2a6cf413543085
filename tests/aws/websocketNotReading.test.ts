/**
 * A client that stops reading, end to end on the emulators: past the local gateway's
 * `maxUnreadBytes` its frames wait unread and the handler's pushes to it wait; a grace later
 * the gateway closes it (4413), the push that waited finds it gone, and the registry drops it
 * before its client has read a byte, let alone said goodbye.
 */
import type { Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { rawConnection, startWebSocketStack, until } from './fixtures/webSocketStack.ts';
import { account, webSocketSuite } from './fixtures/webSocketSuite.ts';

const maxUnreadBytes = 64 * 1024;
const suite = webSocketSuite(() =>
  startWebSocketStack(undefined, { unread: { maxUnreadBytes, unreadGraceMs: 1_000 } }),
);

describe('a client that stops reading', () => {
  it('is closed (4413) a grace after it left maxUnreadBytes unread, and the registry drops it', async () => {
    const { stack } = suite;
    const { socket, connectionId } = await rawConnection(stack);
    const closed = new Promise<{ code: number; reason: string }>((resolve) => {
      socket.once('close', (code, reason) => resolve({ code, reason: reason.toString() }));
    });
    const raw = (socket as unknown as { _socket: Socket })._socket;
    raw.pause(); // from now on it reads nothing
    // Statements of some 300 KB each: more than the sockets' buffers hold.
    for (let i = 0; i < 40; i++) {
      const args = { account: account(`unread-${i}`) };
      socket.send(
        JSON.stringify({ v: 1, type: 'subscribe', id: `s${i}`, query: 'statement', args }),
      );
    }
    await until(() => stack.gateway.unreadBytes(connectionId) > maxUnreadBytes, 'a backlog');
    // Its client still reads nothing: the push that waited found it gone, and removed it.
    await until(async () => (await stack.registryItems()).length === 0, 'the registry to drop it');
    expect(stack.gateway.unreadBytes(connectionId)).toBeLessThanOrEqual(
      maxUnreadBytes + 128 * 1024 + 14,
    );
    raw.resume();
    expect(await closed).toEqual({
      code: 4413,
      reason: `over ${maxUnreadBytes} bytes sent were left unread: read, then connect again`,
    });
    await until(() => !stack.gateway.connectionIds().includes(connectionId), 'its $disconnect');
  });
});
