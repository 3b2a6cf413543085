/**
 * The options of an `EmbeddedQueue`: its clock, journal and name, and the settings it
 * shares with an SQS FIFO queue (visibility timeout, receives before the dead-letter queue,
 * dedupe window, retention, largest message), each defaulting to SQS's or BatonApp's.
 */
import type { Clock } from '@baton/core/adapter';
import type { Journal } from './Journal.ts';

/** Options of an `EmbeddedQueue`. */
export interface EmbeddedQueueOptions {
  /** Drives visibility timeouts and the dedupe window. Default: the system clock. */
  readonly clock?: Clock;
  /** Where sends, acks and dead-letter moves are made durable. Default: none (memory only). */
  readonly journal?: Journal;
  /** Tells apart queues sharing one journal. Default: `'inbox'`. */
  readonly name?: string;
  /**
   * What tells this queue from one that replaced it (`Queue.identity`), e.g. in a test of a
   * replaced inbox. Default: none, not checked (the store and queue share one journal and are
   * never replaced apart).
   */
  readonly identity?: string;
  /**
   * Used when `receive` is given no `visibilityTimeoutMs`. At most `MAX_VISIBILITY_TIMEOUT_MS`
   * (SQS's 12 hours). Default: 30 s (SQS's default).
   */
  readonly visibilityTimeoutMs?: number;
  /** Receives before a message moves to the dead-letter queue. Default: 5. */
  readonly maxReceives?: number;
  /** A send whose `dedupeId` was accepted this recently is dropped. Default: 5 min (SQS). */
  readonly dedupeWindowMs?: number;
  /**
   * How long a message stays in the queue, received or not, before it is dropped (SQS's
   * MessageRetentionPeriod): from 60 s to 14 days. The dead-letter queue keeps a dead letter as
   * long from its move there, as an SQS FIFO dead-letter queue of the same retention keeps it.
   * Default: 14 days, what the BatonApp construct gives the production queue and its
   * dead-letter queue.
   */
  readonly retentionMs?: number;
  /**
   * The largest message as SQS counts it (`queueMessageBytes`: the body in UTF-8, characters SQS
   * refuses escaped, plus the attributes of ids SQS cannot take); a send holding a larger one is
   * refused whole with a terminal MESSAGE_TOO_LARGE, as SQS refuses it. Default:
   * `MAX_MESSAGE_BYTES` (SQS's 1 MiB).
   */
  readonly maxMessageBytes?: number;
}
