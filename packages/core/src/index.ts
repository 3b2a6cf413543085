export {
  type ActorDefinition,
  type ActorOptions,
  type ActorRef,
  type AnyActorDefinition,
  actor,
  type HandlerSpec,
  type MessageName,
  type PayloadOf,
  type ReplyOf,
  type StateOf,
} from './actor.ts';
export { type AskOptions, Client, type ClientOptions, type SendOptions } from './Client.ts';
export { canonicalJson } from './canonicalJson.ts';
export { checkCommit } from './checkCommit.ts';
export {
  type Conflict,
  duplicateKeys,
  jsonSize,
  readConflict,
  transactionTooLarge,
  versionConflict,
} from './conflicts.ts';
export type { ActorContext, Logger } from './context.ts';
export { createQueryContext, type QueryContextOptions } from './createQueryContext.ts';
export { type Arrival, classify, MAX_GAPS, markAfter } from './engine/channels.ts';
export { drainOutbox } from './engine/drainOutbox.ts';
export { createEngine, type Engine, type EngineOptions } from './engine/EngineConfig.ts';
export { MOVES_PER_MESSAGE, RECORD_PEERS } from './engine/overflow.ts';
export { redriveDeadLetter } from './engine/redriveDeadLetter.ts';
export { type Inbound, runTurn, type TurnResult } from './engine/runTurn.ts';
export { Sweeper, type SweeperOptions, type SweepResult } from './engine/Sweeper.ts';
export { type ProcessResult, Worker } from './engine/Worker.ts';
export {
  actorId,
  actorMessageId,
  decodeEnvelope,
  type Envelope,
  encodeEnvelope,
  INGRESS,
  ingressMessageId,
  isActorSender,
  parseActorId,
} from './envelope.ts';
export {
  BatonError,
  type BatonErrorOptions,
  ErrorCode,
  errorFromJSON,
  isBatonError,
  RetryableError,
  type SerializedError,
  TerminalError,
  toBatonError,
} from './errors.ts';
export { messageFingerprint } from './fingerprint.ts';
export { answersMessage, idempotencyKeyReused } from './idempotencyKeyReused.ts';
export { type Random, seededRandom, uuidFrom } from './internal/random.ts';
export { MAX_ACTOR_KEY_BYTES, MAX_MESSAGE_BYTES } from './limits.ts';
export { childLogger, jsonLogger, type LogLevel, silentLogger } from './logger.ts';
export {
  type ActorRecord,
  type ChangeFeed,
  type ChannelMark,
  type Clock,
  type Commit,
  compareSeq,
  type DeadLetter,
  type IdempotencyRecord,
  type OutboxItem,
  type Outcome,
  type OverflowKey,
  type OverflowMark,
  type Queue,
  type QueueMessage,
  type ReceivedMessage,
  type ReceiveOptions,
  type SenderMark,
  type Store,
  type StoreLimits,
  systemClock,
} from './ports.ts';
export {
  type AnyQueryDefinition,
  type ArgsOf,
  type IdentityOf,
  type QueryContext,
  type QueryDefinition,
  type QueryHandler,
  type QueryOptions,
  query,
  type ResultOf,
} from './query.ts';
export { Registry } from './registry.ts';
