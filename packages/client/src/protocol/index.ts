/**
 * `@baton/client/protocol`: Baton's WebSocket wire protocol as pure functions — the frame
 * types, their codec, chunking past API Gateway's 128 KB limit, and JSON Patch for results.
 * The server imports this subpath alone.
 */
export { applyPatch } from './applyPatch.ts';
export { ChunkAssembler, type ChunkAssemblerOptions } from './ChunkAssembler.ts';
export type {
  AckMessage,
  AskMessage,
  ClientMessage,
  PingMessage,
  SendMessage,
  SubscribeMessage,
  UnsubscribeMessage,
} from './clientMessages.ts';
export {
  type DecodeOptions,
  decodeClientMessage,
  decodeServerMessage,
  encodeMessage,
} from './decodeFrame.ts';
export { diff } from './diff.ts';
export type { JsonPatchOp, JsonValue } from './JsonPatchOp.ts';
export {
  type ChunkMessage,
  CLIENT_MESSAGE_TYPES,
  MAX_FRAME_BYTES,
  type Message,
  PROTOCOL_VERSION,
  type ResumePoint,
  SERVER_MESSAGE_TYPES,
  SUPPORTED_VERSIONS,
} from './messages.ts';
export { ProtocolErrorReason, protocolError } from './ProtocolErrorReason.ts';
export {
  type PreviousValue,
  type ResumeAnswer,
  type ResumeState,
  resumeAnswer,
  type VersionedValue,
} from './resumeAnswer.ts';
export type {
  AcceptedMessage,
  ErrorMessage,
  PatchMessage,
  PongMessage,
  ReplyMessage,
  ResultMessage,
  ServerMessage,
  UnchangedMessage,
  VisibleMessage,
} from './serverMessages.ts';
export { type SplitFrameOptions, splitFrame } from './splitFrame.ts';
