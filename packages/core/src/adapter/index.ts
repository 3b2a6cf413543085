/**
 * `@baton/core/adapter`: what a backend or a transport builds on — the ports a store, a queue and
 * a change feed implement, the conflicts and commit checks they report, the envelope codec, the
 * registry of an app's definitions, and the helpers every adapter shares (canonical JSON, one
 * UTF-8 byte count, fingerprints, seeded randomness, the invalid-argument error). Apps do not
 * need it; they import `@baton/core`.
 */
export { authorizeMessage, authorizeQuery, listedQueries, unknownQuery } from '../access.ts';
export { Registry } from '../registry.ts';
export { canonicalJson } from '../shared/canonicalJson.ts';
export { jsonSize } from '../shared/jsonSize.ts';
export { lifeId, type Random, seededRandom, uuidFrom } from '../shared/random.ts';
export { digest128, sha256 } from '../shared/sha256.ts';
export { TOKEN_GUARDED } from '../shared/tokenGuarded.ts';
export {
  fitsUtf8,
  isHighSurrogate,
  isLowSurrogate,
  utf8ByteLength,
  utf8Bytes,
} from '../shared/utf8.ts';
export { upgradeState, upgradeStateForTurn } from '../stateVersions.ts';
export { readableState } from '../workflow/readableState.ts';
export { isRetentionTimer } from '../workflow/retentionTimer.ts';
export { workflowOf } from '../workflow/workflow.ts';
export {
  awaitsRedrive,
  endedWithoutRedrive,
  heldAtPause,
  markedAwaitingRedrive,
} from './awaitsRedrive.ts';
export { checkCommit, checkCommitAsMeasured } from './checkCommit.ts';
export {
  type Conflict,
  duplicateKeys,
  readConflict,
  transactionTooLarge,
  versionConflict,
} from './conflicts.ts';
export { createQueryContext, type QueryContextOptions } from './createQueryContext.ts';
export {
  actorId,
  actorMessageId,
  askTimerId,
  decodeEnvelope,
  ENVELOPE_FORMAT,
  type Envelope,
  effectOf,
  encodeEnvelope,
  INGRESS,
  ingressIdBelongsTo,
  ingressMessageId,
  ingressTarget,
  isActorSender,
  isNewerEnvelope,
  NEWER_ENVELOPE_LOG,
  parseActorId,
  TIMER,
  timerMessageId,
} from './envelope.ts';
export { messageFingerprint } from './fingerprint.ts';
export { answersMessage, idempotencyKeyReused } from './idempotencyKeyReused.ts';
export {
  checkCount,
  invalidArgument,
  messageOf,
  refuseOptions,
} from './invalidArgument.ts';
export type { ChannelMark, OverflowKey, OverflowMark, SenderMark } from './marks.ts';
export {
  PAGE_ENTRY_BYTES,
  PAGE_ITEM_BYTES,
  pageEntriesBytes,
  pageEntryBytes,
  pageItemBytes,
} from './outcomePageBytes.ts';
export { checkPayloadSize, payloadLimit } from './payloadLimit.ts';
export {
  type ChangeFeed,
  type Clock,
  type Commit,
  type CommitMeasures,
  compareSeq,
  type OutcomeReadOptions,
  type Queue,
  type QueueMessage,
  type ReceivedMessage,
  type ReceiveOptions,
  type RedrivePolicy,
  type Store,
  type StoreLimits,
  systemClock,
  type TimerQueue,
  type TurnQueue,
  type TurnStore,
} from './ports.ts';
export {
  isSqsId,
  queueMessageBytes,
  SQS_DEDUPE_ATTRIBUTE,
  SQS_GROUP_ATTRIBUTE,
  sqsAttributeValue,
  toSqsBody,
} from './queueMessageBytes.ts';
export {
  type ActorRecord,
  type DeadLetter,
  deletableAt,
  type FailingMessage,
  type IdempotencyRecord,
  type KeyClaim,
  type OutboxItem,
  type Outcome,
  type OutcomePageState,
  type OutcomePageWrite,
  type PagedOutcome,
  RECORD_FORMAT,
  type Timer,
  type TimerRef,
} from './storedRecords.ts';
export { handlingTrace, parseTraceparent, spanIdOf } from './traceContext.ts';
