import { BatonError, ErrorCode } from '@baton/core';
import type { APIGatewayRequestAuthorizerEventV2 } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { testIssuer } from './fixtures/tokens.ts';
import { jwtAuth } from './jwtAuth.ts';
import { jwtAuthorizer } from './jwtAuthorizer.ts';

const ISSUER = 'https://login.example.test/';
const AUDIENCE = 'bank';
const keys = testIssuer(ISSUER, AUDIENCE);
const now = Math.floor(Date.now() / 1000);

/** jwtAuth on the test issuer, its keys preloaded (nothing is fetched), refusals recorded. */
function auth(more: Record<string, unknown> = {}) {
  const refused: Error[] = [];
  const hook = jwtAuth({
    issuer: ISSUER,
    audience: AUDIENCE,
    jwks: keys.jwks,
    onRefused: (reason) => refused.push(reason),
    ...more,
  });
  return { hook, refused };
}

/** What a refusal is: UNAUTHENTICATED, "unauthorized" and nothing else. */
async function refusal(promise: Promise<unknown>): Promise<BatonError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(BatonError);
  expect(error).toMatchObject({ code: ErrorCode.UNAUTHENTICATED, message: 'unauthorized' });
  return error as BatonError;
}

describe('jwtAuth', () => {
  it('accepts a token signed by the issuer for the audience, as { sub, groups }', async () => {
    const { hook } = auth();
    const token = keys.sign({ groups: ['admin', 'ops'] });
    expect(await hook({ token, headers: {} })).toEqual({
      sub: 'user-alice',
      groups: ['admin', 'ops'],
    });
  });

  it("ends the connection's identity at the token's exp, plus the grace", async () => {
    const ends: number[] = [];
    const validUntil = (epochMs: number) => ends.push(epochMs);
    const token = keys.sign({ exp: now + 600 });
    await auth().hook({ token, headers: {}, validUntil });
    await auth({ graceSeconds: 30 }).hook({ token, headers: {}, validUntil });
    expect(ends).toEqual([(now + 600) * 1000, (now + 630) * 1000]);
  });

  it('reads the token from an Authorization: Bearer header when the handshake has none', async () => {
    const { hook } = auth();
    const headers = { authorization: `Bearer ${keys.sign({ sub: 'user-bob' })}` };
    expect(await hook({ headers })).toEqual({ sub: 'user-bob', groups: [] });
  });

  it.each([
    ['an expired token', () => keys.sign({ iat: now - 7200, exp: now - 3600 }), /expired/i],
    ['a token not valid yet', () => keys.sign({ nbf: now + 3600 }), /used before/i],
    [
      'a token from another issuer',
      () => keys.sign({ iss: 'https://evil.example.test/' }),
      /issuer/i,
    ],
    ['a token for another audience', () => keys.sign({ aud: 'another-app' }), /audience/i],
    ['a token signed with another key', () => keys.signWithForeignKey(), /signature/i],
    ['an unsigned alg:none token', () => keys.unsigned(), /alg|signature|none/i],
    ['a token with its payload changed after signing', () => tampered(keys.sign()), /signature/i],
    ['a token of an HMAC algorithm', () => keys.sign({}, { alg: 'HS256' }), /alg|signature/i],
    ['something that is not a JWT', () => 'not-a-jwt', /jwt|parse|invalid/i],
  ])('refuses %s, telling the client only "unauthorized"', async (_what, token, reason) => {
    const { hook, refused } = auth();
    await refusal(hook({ token: token(), headers: {} }));
    expect(refused).toHaveLength(1);
    expect(refused[0]!.message).toMatch(reason);
  });

  it('refuses a connection that offers no token', async () => {
    const { hook, refused } = auth();
    await refusal(hook({ headers: {} }));
    expect(refused[0]!.message).toMatch(/no token/);
  });

  it('refuses a token without a subject, which names no caller', async () => {
    const { hook } = auth();
    await refusal(hook({ token: keys.sign({ sub: undefined }), headers: {} }));
  });

  it('checks the scope when asked to', async () => {
    const { hook } = auth({ scope: 'bank:use' });
    await refusal(hook({ token: keys.sign({ scope: 'profile' }), headers: {} }));
    const identity = await hook({ token: keys.sign({ scope: 'profile bank:use' }), headers: {} });
    expect(identity).toEqual({ sub: 'user-alice', groups: [] });
  });

  it('makes the identity the app asks for from the verified claims', async () => {
    const { hook } = auth({
      identity: (claims: { sub?: string; email?: unknown }) => ({
        userId: claims.sub,
        email: claims.email,
      }),
    });
    const token = keys.sign({ email: 'alice@example.test' });
    expect(await hook({ token, headers: {} })).toEqual({
      userId: 'user-alice',
      email: 'alice@example.test',
    });
  });

  it('verifies Cognito tokens: the pool as issuer, the app client, the token use and cognito:groups', async () => {
    const pool = 'eu-west-1_Example1';
    const cognito = testIssuer(`https://cognito-idp.eu-west-1.amazonaws.com/${pool}`, 'client-1');
    const hook = jwtAuth({
      cognito: { userPoolId: pool, clientId: 'client-1', tokenUse: 'access' },
      jwks: cognito.jwks,
    });
    const access = (claims: Record<string, unknown>) =>
      cognito.sign({ aud: undefined, client_id: 'client-1', token_use: 'access', ...claims });
    const token = access({ 'cognito:groups': ['tellers'] });
    expect(await hook.verify(token)).toEqual({ sub: 'user-alice', groups: ['tellers'] });
    await refusal(hook.verify(access({ client_id: 'client-2' })));
    await refusal(hook.verify(access({ token_use: 'id' })));
  });
});

describe('jwtAuthorizer', () => {
  const authorizer = jwtAuthorizer({ issuer: ISSUER, audience: AUDIENCE, jwks: keys.jwks });
  const event = (authorization?: string) =>
    ({
      type: 'REQUEST',
      routeArn: 'arn:aws:execute-api:eu-west-1:123456789012:api/$default/POST/send',
      headers: authorization === undefined ? {} : { authorization },
    }) as unknown as APIGatewayRequestAuthorizerEventV2;

  it('authorizes a request with a valid bearer token, passing its identity on, and when the token ends', async () => {
    const result = await authorizer(
      event(`Bearer ${keys.sign({ groups: ['ops'], exp: now + 300 })}`),
    );
    expect(result).toEqual({
      isAuthorized: true,
      context: { identity: { sub: 'user-alice', groups: ['ops'] }, validUntil: (now + 300) * 1000 },
    });
    // A token without exp has no end to pass on.
    expect(await authorizer(event(`Bearer ${keys.sign({ exp: undefined })}`))).toEqual({
      isAuthorized: true,
      context: { identity: { sub: 'user-alice', groups: [] } },
    });
  });

  it.each([
    ['no Authorization header', undefined],
    ['a scheme other than Bearer', `Basic ${Buffer.from('a:b').toString('base64')}`],
    ['an expired token', `Bearer ${keys.sign({ exp: now - 60 })}`],
    ['an unsigned token', `Bearer ${keys.unsigned()}`],
  ])('refuses a request with %s, and says nothing more', async (_what, authorization) => {
    expect(await authorizer(event(authorization))).toEqual({ isAuthorized: false });
  });
});

/** The token with one claim changed and the original signature kept. */
function tampered(token: string): string {
  const [header, payload, signature] = token.split('.');
  const claims = JSON.parse(Buffer.from(payload!, 'base64url').toString());
  const changed = Buffer.from(JSON.stringify({ ...claims, sub: 'user-mallory' })).toString(
    'base64url',
  );
  return `${header}.${changed}.${signature}`;
}
