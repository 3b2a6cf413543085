/**
 * The subprotocol of Baton's protocol version 1: a client offers it (with `token.<token>` when
 * it has a token) and the server echoes it.
 *
 * @example
 * new WebSocket(url, [SUBPROTOCOL, `token.${token}`]);
 */
export const SUBPROTOCOL = 'baton.v1';

/**
 * Protocol version 1 without acks: a client offers it beside {@link SUBPROTOCOL}, and a server
 * that pushes every result at once, without waiting for acks (the API Gateway host), selects it.
 * The client then sends no `ack`: behind API Gateway each would be an invocation, and a write to
 * count it, that the host does nothing with. A server that holds pushes until they are acked
 * (the local host) selects {@link SUBPROTOCOL}, as older servers and clients do.
 *
 * @example
 * const acks = socket.protocol !== UNACKED_SUBPROTOCOL;
 */
export const UNACKED_SUBPROTOCOL = 'baton.v1.unacked';

/**
 * Protocol version 1 with counted acks: the client acknowledges pushes with one `received`
 * frame per read, the count of frames it has read on the socket, instead of an `ack` per
 * subscription. A client offers it first; a server that holds pushes until they are acked (the
 * local host) selects it when offered, else {@link SUBPROTOCOL}. An older server does not know it
 * and selects {@link SUBPROTOCOL}, and the client then acks per subscription.
 *
 * @example
 * const counted = socket.protocol === RECEIVED_SUBPROTOCOL;
 */
export const RECEIVED_SUBPROTOCOL = 'baton.v1.received';

const TOKEN_PREFIX = 'token.';

/**
 * The names in a `Sec-WebSocket-Protocol` header, trimmed.
 *
 * @example
 * offeredProtocols('baton.v1, token.abc'); // ['baton.v1', 'token.abc']
 */
export function offeredProtocols(header: string | undefined): string[] {
  return (header ?? '')
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '');
}

/**
 * The token of a WebSocket handshake, from its parts: the `token` query parameter, else the
 * `token.<token>` entry of `Sec-WebSocket-Protocol` (browsers cannot set other headers). Pure,
 * so hosts without `ws` (the API Gateway `$connect` route) share it.
 *
 * @example
 * tokenFromHandshake(undefined, 'baton.v1, token.abc'); // 'abc'
 * tokenFromHandshake('xyz', 'baton.v1'); // 'xyz'
 */
export function tokenFromHandshake(
  queryToken: string | null | undefined,
  protocolHeader: string | undefined,
): string | undefined {
  if (queryToken) return queryToken;
  for (const name of offeredProtocols(protocolHeader)) {
    if (name.startsWith(TOKEN_PREFIX) && name.length > TOKEN_PREFIX.length) {
      return name.slice(TOKEN_PREFIX.length);
    }
  }
  return undefined;
}
