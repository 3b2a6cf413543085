import { ErrorCode } from '@baton/core';
import { describe, expect, it } from 'vitest';
import { requireConnectAuth, WEBSOCKET_AUTH_ENV } from './requireConnectAuth.ts';

describe('requireConnectAuth', () => {
  it("refuses to start a WebSocket function declared webSocketAuth: 'app' for an app without auth", () => {
    expect(() => requireConnectAuth({}, { [WEBSOCKET_AUTH_ENV]: 'app' })).toThrow(
      expect.objectContaining({
        code: ErrorCode.INVALID_ARGUMENT,
        message: expect.stringMatching(/exports no auth.*webSocketAuth: 'app'.*allowAnonymous/),
      }),
    );
  });

  it('starts one whose app has auth, or that was deployed open on purpose', () => {
    const auth = () => ({ sub: 'alice' });
    expect(() => requireConnectAuth({ auth }, { [WEBSOCKET_AUTH_ENV]: 'app' })).not.toThrow();
    expect(() => requireConnectAuth({}, { [WEBSOCKET_AUTH_ENV]: 'none' })).not.toThrow();
  });
});
