import { BatonError, ErrorCode } from '@baton/core';
import { CognitoJwtVerifier, JwtVerifier } from 'aws-jwt-verify';
import type { JwtPayload } from 'aws-jwt-verify/jwt-model';
import type { JwtAuthOptions, JwtIdentity } from './JwtAuthOptions.ts';

/**
 * Verifies a token and turns its claims into an identity, or throws "unauthorized"; tells
 * `validUntil` when the token expires (its `exp` and the grace, in epoch ms).
 */
export type TokenVerifier<Identity> = (
  token: string | undefined,
  validUntil?: (epochMs: number) => void,
) => Promise<Identity>;

/**
 * One verifier for the options (aws-jwt-verify's, which checks the signature against the
 * issuer's keys — RS/ES/EdDSA only, never `none` — and `iss`, `aud`, `exp`, `nbf`, `scope`).
 * Every refusal is the same BatonError(UNAUTHENTICATED, 'unauthorized'); its reason goes to
 * `onRefused` only.
 */
export function createTokenVerifier<Identity = JwtIdentity>(
  options: JwtAuthOptions<Identity>,
): TokenVerifier<Identity> {
  const list = (value: string | readonly string[]) => (Array.isArray(value) ? [...value] : value);
  const scope = options.scope === undefined ? {} : { scope: list(options.scope) as string[] };
  const grace = { graceSeconds: options.graceSeconds ?? 0 };
  let verify: (token: string) => Promise<JwtPayload>;
  let groupsClaim: string;
  if ('cognito' in options) {
    const { userPoolId, clientId, tokenUse } = options.cognito;
    const verifier = CognitoJwtVerifier.create({
      userPoolId,
      clientId: list(clientId) as string[],
      tokenUse,
      ...scope,
      ...grace,
    });
    if (options.jwks) verifier.cacheJwks(options.jwks);
    verify = (token) => verifier.verify(token);
    groupsClaim = options.groupsClaim ?? 'cognito:groups';
  } else {
    const verifier = JwtVerifier.create({
      issuer: options.issuer,
      audience: list(options.audience) as string[],
      ...(options.jwksUri ? { jwksUri: options.jwksUri } : {}),
      ...scope,
      ...grace,
    });
    if (options.jwks) verifier.cacheJwks(options.jwks);
    verify = (token) => verifier.verify(token);
    groupsClaim = options.groupsClaim ?? 'groups';
  }
  const identity =
    options.identity ??
    ((claims: JwtPayload) => defaultIdentity(claims, groupsClaim) as unknown as Identity);

  return async (token, validUntil) => {
    try {
      if (!token)
        throw new Error(
          'no token: send it as ?token=, a token.<jwt> subprotocol or Authorization: Bearer',
        );
      const claims = await verify(token);
      const verified = identity(claims);
      if (typeof claims.exp === 'number') validUntil?.((claims.exp + grace.graceSeconds) * 1000);
      return verified;
    } catch (error) {
      options.onRefused?.(error instanceof Error ? error : new Error(String(error)));
      throw new BatonError(ErrorCode.UNAUTHENTICATED, 'unauthorized');
    }
  };
}

/** `{ sub, groups }` of verified claims; a token without a subject names no one. */
function defaultIdentity(claims: JwtPayload, groupsClaim: string): JwtIdentity {
  if (typeof claims.sub !== 'string' || claims.sub === '') {
    throw new Error('the token has no "sub" claim: it names no caller');
  }
  const groups = claims[groupsClaim];
  return {
    sub: claims.sub,
    groups: Array.isArray(groups) ? groups.filter((g): g is string => typeof g === 'string') : [],
  };
}

/** The token of an `Authorization: Bearer <token>` header, if there is one. */
export function bearerToken(header: string | readonly string[] | undefined): string | undefined {
  const value = Array.isArray(header) ? header[0] : header;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(typeof value === 'string' ? value : '');
  return match?.[1];
}
