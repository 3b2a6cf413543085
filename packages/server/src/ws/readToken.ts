import type { IncomingMessage } from 'node:http';

/**
 * The subprotocol of Baton's protocol version 1: a client offers it (with `token.<token>` when
 * it has a token) and the server echoes it.
 *
 * @example
 * new WebSocket(url, [SUBPROTOCOL, `token.${token}`]);
 */
export const SUBPROTOCOL = 'baton.v1';

const TOKEN_PREFIX = 'token.';

/**
 * The token of a WebSocket upgrade request: the `token` query parameter, else the
 * `token.<token>` entry of `Sec-WebSocket-Protocol` (browsers cannot set other headers).
 *
 * @example
 * readToken(request); // 'abc' for ws://host/?token=abc or subprotocols ['baton.v1', 'token.abc']
 */
export function readToken(request: Pick<IncomingMessage, 'url' | 'headers'>): string | undefined {
  const query = new URL(request.url ?? '/', 'http://localhost').searchParams.get('token');
  if (query) return query;
  const offered = request.headers['sec-websocket-protocol'] ?? '';
  for (const protocol of offered.split(',')) {
    const name = protocol.trim();
    if (name.startsWith(TOKEN_PREFIX) && name.length > TOKEN_PREFIX.length) {
      return name.slice(TOKEN_PREFIX.length);
    }
  }
  return undefined;
}
