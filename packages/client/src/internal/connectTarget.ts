import { RECEIVED_SUBPROTOCOL, SUBPROTOCOL, UNACKED_SUBPROTOCOL } from '@baton/protocol';

/** RFC 7230 `token` characters: what a subprotocol may be made of. */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/**
 * Where to connect and with which subprotocols: `baton.v1.received`, `baton.v1` and
 * `baton.v1.unacked` (the server picks), plus `token.<token>` when the token is a valid subprotocol name, else the token travels
 * as `?token=` in the URL.
 */
export function connectTarget(
  url: string,
  token: string | undefined,
): { url: string; protocols: string[] } {
  const protocols = [RECEIVED_SUBPROTOCOL, SUBPROTOCOL, UNACKED_SUBPROTOCOL];
  if (token === undefined || token === '') return { url, protocols };
  if (TOKEN.test(token)) return { url, protocols: [...protocols, `token.${token}`] };
  const withToken = new URL(url);
  withToken.searchParams.set('token', token);
  return { url: withToken.toString(), protocols };
}
