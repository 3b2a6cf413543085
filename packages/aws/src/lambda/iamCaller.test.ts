import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { authCaller, iamCaller } from './iamCaller.ts';

const event = (requestContext: object, headers: Record<string, string> = {}) =>
  ({ requestContext, headers }) as unknown as APIGatewayProxyEventV2;

describe('the HTTP ingress’s callers', () => {
  it('names a Lambda authorizer’s user, a SigV4 principal of an HTTP or a REST API, or nobody', () => {
    const arn = 'arn:aws:iam::123456789012:role/ops';
    expect(iamCaller(event({ authorizer: { lambda: { identity: { sub: 'u1' } } } }))).toEqual({
      kind: 'user',
      identity: { sub: 'u1' },
    });
    expect(iamCaller(event({ authorizer: { iam: { userArn: arn } } }))).toEqual({
      kind: 'iam',
      principal: arn,
    });
    expect(iamCaller(event({ identity: { userArn: arn } }))).toEqual({
      kind: 'iam',
      principal: arn,
    });
    expect(iamCaller(event({ http: { method: 'POST' } }))).toEqual({ kind: 'anonymous' });
  });

  it('refuses a Lambda authorizer’s user past the validUntil it passed on: API Gateway may answer from its cache after the token expired', () => {
    const user = (validUntil?: unknown) =>
      event({ authorizer: { lambda: { identity: { sub: 'u1' }, validUntil } } });
    const later = Date.now() + 60_000;
    expect(iamCaller(user(later))).toEqual({ kind: 'user', identity: { sub: 'u1' } });
    expect(iamCaller(user(String(later)))).toEqual({ kind: 'user', identity: { sub: 'u1' } });
    expect(iamCaller(user())).toEqual({ kind: 'user', identity: { sub: 'u1' } });
    const expired = Date.UTC(2025, 0, 1);
    for (const validUntil of [expired, String(expired)]) {
      expect(() => iamCaller(user(validUntil))).toThrow(
        expect.objectContaining({
          code: 'UNAUTHENTICATED',
          message:
            "the token expired at 2025-01-01T00:00:00.000Z, and the authorizer's cached answer outlived it: send a fresh token",
        }),
      );
    }
  });

  it('signs a bearer token in with the app’s auth, and refuses what auth refuses', async () => {
    const caller = authCaller(({ token }) => {
      if (token !== 'good') throw new Error('unauthorized');
      return { userId: 'alice' };
    });
    await expect(caller(event({}, { Authorization: 'Bearer good' }))).resolves.toEqual({
      kind: 'user',
      identity: { userId: 'alice' },
    });
    await expect(caller(event({}, { authorization: 'Bearer bad' }))).rejects.toThrow(
      'unauthorized',
    );
    await expect(caller(event({}))).rejects.toThrow('unauthorized');
  });

  it('refuses a token whose identity the app’s auth ended already (validUntil), as the WebSocket hosts do', async () => {
    const caller = authCaller(({ token, validUntil }) => {
      validUntil?.(token === 'stale' ? Date.now() - 1 : Date.now() + 60_000);
      return { userId: 'alice' };
    });
    await expect(caller(event({}, { authorization: 'Bearer fresh' }))).resolves.toEqual({
      kind: 'user',
      identity: { userId: 'alice' },
    });
    await expect(caller(event({}, { authorization: 'Bearer stale' }))).rejects.toMatchObject({
      code: 'UNAUTHENTICATED',
    });
  });
});
