import type { Clock, Queue, Store } from '@baton/core/adapter';

/** A backend under test: its ports, and what the suite needs to drive it without knowing it. */
export interface ConformanceBackend {
  readonly store: Store;
  readonly queue: Queue;
  readonly clock: Clock;
  /** Messages in the inbox, visible or in flight. */
  pending(): Promise<number>;
  /** Lets `ms` of backend time pass (virtual time advances; real time sleeps). */
  pass(ms: number): Promise<void>;
  /**
   * Deletes the record of `actorId` if it is past its expiry, as a TTL would; one that holds
   * sends stays until they are retired, one paused or holding parked messages until it no
   * longer is (the store's own rule: `deletableAt`).
   */
  expire(actorId: string): Promise<void>;
  close(): Promise<void>;
}
