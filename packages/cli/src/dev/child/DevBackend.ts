import type { ActorRecord, ChangeFeed, Queue, Store } from '@baton/core/adapter';
import type { Engine } from '@baton/core/engine';

/** Queue and outbox depths, as the inspector shows them. */
export interface Depths {
  /** Inbox messages not yet acknowledged (waiting or in flight). */
  readonly inbox: number;
  /** Of those, received and not yet acknowledged. */
  readonly inFlight: number;
  /** Committed outbox items not yet drained. */
  readonly outbox: number;
}

/** The ports an app process runs on, and what the inspector reads beside them. */
export interface DevBackend {
  /** e.g. `embedded, data in …/.baton`. */
  readonly label: string;
  readonly store: Store;
  readonly queue: Queue;
  readonly feed: ChangeFeed;
  /** Every committed actor record (the inspector shows the first few hundred). */
  listActors(): Promise<ActorRecord[]>;
  /**
   * What `listActors` covers: every actor, or (local-aws, read from the change feed) only those
   * committed since this app process started.
   */
  readonly actorsListed: 'all' | 'since-start';
  depths(): Promise<Depths>;
  /** Resolves when a message may be receivable (or after a while): the worker loop's sleep. */
  waitForWork(): Promise<void>;
  /** Ends every pending `waitForWork`. */
  wake(): void;
  /**
   * Fires durable timers when due, if the backend can watch them (embedded); otherwise the
   * worker loops' sweeper fires them within its interval.
   */
  fireTimers?(engine: Engine): { stop(): Promise<void> };
  close(): Promise<void>;
}
