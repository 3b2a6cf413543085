import type { IncomingMessage } from 'node:http';
import { tokenFromHandshake } from '@baton/protocol';

/**
 * The token of a WebSocket upgrade request: the `token` query parameter, else the
 * `token.<token>` entry of `Sec-WebSocket-Protocol` (browsers cannot set other headers).
 *
 * @example
 * readToken(request); // 'abc' for ws://host/?token=abc or subprotocols ['baton.v1', 'token.abc']
 */
export function readToken(request: Pick<IncomingMessage, 'url' | 'headers'>): string | undefined {
  const query = new URL(request.url ?? '/', 'http://localhost').searchParams.get('token');
  return tokenFromHandshake(query, request.headers['sec-websocket-protocol']);
}
