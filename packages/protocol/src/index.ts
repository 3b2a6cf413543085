/**
 * `@baton/protocol`: Baton's WebSocket wire protocol as pure functions, shared by the client and
 * every host — the frame types and their strict codec, chunking past API Gateway's 128 KB frame
 * limit, JSON Patch for results, resume answers, the handshake (subprotocol and token) and the
 * reader of client frames that hosts answer with. No I/O; runs in browsers and Node.
 */
export { applyPatch } from './applyPatch.ts';
export { ByteBudget } from './ByteBudget.ts';
export { ChunkAssembler, type ChunkAssemblerOptions } from './ChunkAssembler.ts';
export type {
  AckMessage,
  AcksMessage,
  AskMessage,
  ClientMessage,
  PingMessage,
  ReceivedMessage,
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
export {
  offeredProtocols,
  RECEIVED_SUBPROTOCOL,
  SUBPROTOCOL,
  tokenFromHandshake,
  UNACKED_SUBPROTOCOL,
} from './handshake.ts';
export type { JsonPatchOp, JsonValue } from './JsonPatchOp.ts';
export {
  type ChunkMessage,
  CLIENT_MESSAGE_TYPES,
  MAX_FRAME_BYTES,
  MAX_ID_LENGTH,
  MAX_RESUME_VERSION,
  type Message,
  PROTOCOL_VERSION,
  type ResumePoint,
  resumeFloor,
  SERVER_MESSAGE_TYPES,
  SUPPORTED_VERSIONS,
} from './messages.ts';
export { ProtocolErrorReason, protocolError } from './ProtocolErrorReason.ts';
export { type ErrorTarget, type FrameReading, readClientFrame } from './readClientFrame.ts';
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
