/**
 * `@baton/client`: the framework-free Baton client — live queries and sends over one WebSocket
 * that reconnects and resumes by itself — and the wire protocol it speaks, also importable alone
 * from `@baton/client/protocol`.
 */
export { BatonClient, type ClientAskOptions, type ClientSendOptions } from './BatonClient.ts';
export type {
  BatonClientOptions,
  Timers,
  WebSocketConstructor,
  WebSocketLike,
} from './BatonClientOptions.ts';
export type { ConnectionState } from './ConnectionState.ts';
export {
  type AcceptedMessage,
  type AckMessage,
  type AskMessage,
  applyPatch,
  ChunkAssembler,
  type ChunkAssemblerOptions,
  type ChunkMessage,
  CLIENT_MESSAGE_TYPES,
  type ClientMessage,
  type DecodeOptions,
  decodeClientMessage,
  decodeServerMessage,
  diff,
  type ErrorMessage,
  encodeMessage,
  type JsonPatchOp,
  type JsonValue,
  MAX_FRAME_BYTES,
  type Message,
  type PatchMessage,
  type PingMessage,
  type PongMessage,
  PROTOCOL_VERSION,
  type PreviousValue,
  ProtocolErrorReason,
  type ReplyMessage,
  type ResultMessage,
  type ResumeAnswer,
  type ResumePoint,
  type ResumeState,
  resumeAnswer,
  SERVER_MESSAGE_TYPES,
  type SendMessage,
  type ServerMessage,
  type SplitFrameOptions,
  SUPPORTED_VERSIONS,
  type SubscribeMessage,
  splitFrame,
  type UnchangedMessage,
  type UnsubscribeMessage,
  type VersionedValue,
  type VisibleMessage,
} from './protocol/index.ts';
export type { QueryListener, QueryObserver, QueryRef } from './QueryObserver.ts';
export {
  PENDING_STATE,
  type QueryFailure,
  type QueryPending,
  type QueryState,
  type QueryStatus,
  type QuerySuccess,
} from './QueryState.ts';
