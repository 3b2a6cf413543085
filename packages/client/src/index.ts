/**
 * `@baton/client`: the framework-free Baton client — live queries and sends over one WebSocket
 * that reconnects and resumes by itself. The wire protocol it speaks is `@baton/protocol`.
 */
export { BatonClient, type ClientAskOptions, type ClientSendOptions } from './BatonClient.ts';
export type {
  BatonClientOptions,
  Timers,
  WebSocketConstructor,
  WebSocketLike,
} from './BatonClientOptions.ts';
export type { ConnectionState } from './ConnectionState.ts';
export { knownWorkflow } from './knownWorkflow.ts';
export type { QueryListener, QueryObserver, QueryRef } from './QueryObserver.ts';
export {
  PENDING_STATE,
  type QueryFailure,
  type QueryPending,
  type QueryState,
  type QueryStatus,
  type QuerySuccess,
} from './QueryState.ts';
