/**
 * `@baton/server/ws`: the local WebSocket host — Baton's wire protocol served over the reactive
 * query engine on one port, for development, tests and the embedded backend. Kept off the
 * package root so that importing `@baton/server` (e.g. in a Lambda) pulls in no `ws`.
 */

export type { AllowedOrigins } from '../session/allowedOrigins.ts';
export { CloseCode } from './CloseCode.ts';
export type { ConnectionInfo } from './ConnectionInfo.ts';
export { createLocalServer, type LocalServer } from './createLocalServer.ts';
export type { AuthRequest, LocalServerOptions, LocalServerPorts } from './LocalServerOptions.ts';
export { readToken } from './readToken.ts';
