import type { ConnectRequest } from '@baton/core';
import { bearerToken, createTokenVerifier } from './createTokenVerifier.ts';
import type { JwtAuthOptions, JwtIdentity } from './JwtAuthOptions.ts';

/**
 * An app's `auth` hook that verifies a JWT on every WebSocket `$connect`: the token the client
 * sends (`new BatonClient({ token })`, as `?token=` or the `token.<jwt>` subprotocol) or an
 * `Authorization: Bearer` header. The signature is checked against the issuer's published keys
 * (any OIDC issuer, or a Cognito user pool) with aws-jwt-verify, then `iss`, `aud`, `exp`,
 * `nbf` and `scope`; the connection's identity is `{ sub, groups }` (or what `identity` makes of
 * the claims). A refused connection learns only "unauthorized" (a 401); the reason goes to
 * `onRefused`. The connection's identity lasts until the token's `exp` (plus `graceSeconds`; a
 * token without `exp` sets no end): then the host closes it, and `BatonClient` connects again
 * with a fresh token from its `token` function.
 *
 * `verify(token)` checks a token the same way, for code of your own.
 *
 * @example
 * // app.ts
 * import { jwtAuth } from '@baton/aws/auth';
 * export default defineApp({
 *   actors: [Account],
 *   queries: [balances],
 *   auth: jwtAuth({
 *     cognito: { userPoolId: 'eu-west-1_abc123', clientId: '1example23456789', tokenUse: 'id' },
 *   }),
 * });
 */
export function jwtAuth<Identity = JwtIdentity>(
  options: JwtAuthOptions<Identity>,
): JwtAuthHook<Identity> {
  const verify = createTokenVerifier(options);
  const hook = (request: ConnectRequest) =>
    verify(request.token ?? bearerToken(request.headers.authorization), request.validUntil);
  return Object.assign(hook, { verify });
}

/** What {@link jwtAuth} returns: an `auth` hook, and the token check it runs. */
export interface JwtAuthHook<Identity> {
  (request: ConnectRequest): Promise<Identity>;
  /** Verifies one token: its identity, or a BatonError(UNAUTHENTICATED, 'unauthorized'). */
  verify(token: string | undefined): Promise<Identity>;
}
