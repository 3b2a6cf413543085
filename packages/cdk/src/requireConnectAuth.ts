import { BatonError, ErrorCode } from '@baton/core';

/** The WebSocket function's variable that says what `webSocketAuth` the construct declared. */
export const WEBSOCKET_AUTH_ENV = 'BATON_WEBSOCKET_AUTH';

/**
 * Refuses to start a WebSocket function whose construct declared `webSocketAuth: 'app'` for an
 * app that exports no `auth`: such a function would accept every connection. It fails closed at
 * cold start (every `$connect` is then refused), with an error that says what to do.
 *
 * @example
 * requireConnectAuth(app, process.env); // in the WebSocket function's entry, before the handler
 */
export function requireConnectAuth(
  app: { readonly auth?: unknown },
  env: Readonly<Record<string, string | undefined>>,
): void {
  if (env[WEBSOCKET_AUTH_ENV] === 'app' && typeof app.auth !== 'function') {
    throw new BatonError(ErrorCode.INVALID_ARGUMENT, NO_AUTH);
  }
}

/** What is wrong, and what to do, when an app declared `webSocketAuth: 'app'` has no `auth`. */
export const NO_AUTH =
  "the app exports no auth, but its BatonApp declares webSocketAuth: 'app': export " +
  'defineApp({ actors, queries, auth }) with an auth hook (e.g. jwtAuth from ' +
  "@baton/aws/auth), or deploy it open with webSocketAuth: 'none' and allowAnonymous: true";
