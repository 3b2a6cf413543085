/**
 * `@baton/server/session`: Baton's WebSocket protocol session, behind both hosts — the local one
 * (`@baton/server/ws`) and the API Gateway handlers of `@baton/aws/websocket`. It reads frames,
 * checks access and the per-connection caps, dispatches to ports the host supplies (replies,
 * subscriptions, frame counts, outcome waits) and shapes every reply; a host keeps only its
 * transport and state.
 */
export {
  type AllowedOrigins,
  loopbackOrigins,
  type OriginCheck,
  originCheck,
  originRefused,
} from './allowedOrigins.ts';
export { answerOutcome, visibleFrame } from './answerOutcome.ts';
export {
  authExpired,
  authenticate,
  authLapsed,
  type ConnectAttempt,
  type ConnectAuth,
} from './authenticate.ts';
export { authRefusal, UNAUTHORIZED } from './authRefusal.ts';
export {
  type ConnectionLimits,
  connectionOwner,
  type FrameCounter,
  frameOutcome,
  MemoryFrameCounter,
  rateLimited,
  resolveConnectionLimits,
  tooManyConnections,
  tooManyFrames,
  tooManySubscriptions,
} from './connectionLimits.ts';
export { ProtocolSession, type ProtocolSessionOptions } from './ProtocolSession.ts';
export type {
  OutcomeWait,
  OutcomeWaits,
  SessionCaller,
  SessionPorts,
  SubscriptionOpening,
  SubscriptionStore,
} from './SessionPorts.ts';
