/**
 * @baton/embedded — the in-process backend: a store with DynamoDB's transaction semantics and
 * change feed, a queue with SQS FIFO semantics, and an optional journal for durability.
 */
export { DYNAMODB_LIMITS } from './check-commit.ts';
export {
  createEmbeddedBackend,
  type EmbeddedBackend,
  type EmbeddedBackendOptions,
  type EmbeddedQueueSettings,
} from './create-embedded-backend.ts';
export { EmbeddedQueue, type EmbeddedQueueOptions, type QueueCounts } from './embedded-queue.ts';
export {
  type EmbeddedRuntime,
  type EmbeddedRuntimeOptions,
  startEmbedded,
} from './embedded-runtime.ts';
export { EmbeddedStore, type EmbeddedStoreOptions } from './embedded-store.ts';
export { FileJournal } from './file-journal.ts';
export { type Journal, type JournalEntry, MemoryJournal } from './journal.ts';
export type { DeadLetter } from './queue-state.ts';
