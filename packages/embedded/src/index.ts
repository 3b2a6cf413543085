/**
 * @baton/embedded — the in-process backend: a store with DynamoDB's transaction semantics and
 * change feed, a queue with SQS FIFO semantics, and an optional journal for durability.
 */

export {
  createEmbeddedBackend,
  type EmbeddedBackend,
  type EmbeddedBackendOptions,
  type EmbeddedQueueSettings,
} from './createEmbeddedBackend.ts';
export { EmbeddedQueue, type EmbeddedQueueOptions, type QueueCounts } from './EmbeddedQueue.ts';
export { EmbeddedStore, type EmbeddedStoreOptions } from './EmbeddedStore.ts';
export { FileJournal } from './FileJournal.ts';
export type { IdleOptions, IdleReport } from './idle.ts';
export { type Journal, type JournalEntry, MemoryJournal } from './Journal.ts';
export type { DeadLetter } from './QueueState.ts';
export { type QueueWaiter, queueWaiter } from './queueWaiter.ts';
export {
  type EmbeddedRuntime,
  type EmbeddedRuntimeOptions,
  startEmbedded,
} from './startEmbedded.ts';
export { DYNAMODB_LIMITS } from './storeLimits.ts';
export { TimerPump } from './TimerPump.ts';
