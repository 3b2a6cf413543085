/**
 * How an `ask` waits for its message's outcome: pushed by a store that watches outcomes (the
 * embedded one), else polled with a backoff, until one settles the wait or the ask times out.
 */
import { heldAtPause } from '../adapter/awaitsRedrive.ts';
import type { Store } from '../adapter/ports.ts';
import type { IdempotencyRecord } from '../adapter/storedRecords.ts';
import { BatonError, ErrorCode } from '../errors.ts';

/** A wait begun by {@link waitForOutcome}. */
export interface OutcomeWait {
  /** The record that settled the wait; rejects with ASK_TIMEOUT. */
  readonly record: Promise<IdempotencyRecord>;
  /** Stops the wait (its watch and its polls). */
  readonly cancel: () => void;
  /** Tells the wait of a record read before it began. */
  readonly seen: (record: IdempotencyRecord) => void;
}

/**
 * Resolves when message `key`'s idempotency record appears with an outcome that `settles` the
 * wait: pushed if the store can, else polled with `read`. An outcome that does not (one that
 * waits for a redrive) is waited past, for the one that replaces it; `seen` tells the wait of one
 * read before it began.
 */
export function waitForOutcome(
  store: Pick<Store, 'watchOutcomes'>,
  key: string,
  timeoutMs: number,
  read: () => Promise<IdempotencyRecord | undefined>,
  settles: (record: IdempotencyRecord) => boolean,
): OutcomeWait {
  let cancel = () => {};
  let seen = (_record: IdempotencyRecord) => {};
  const outcome = new Promise<IdempotencyRecord>((resolve, reject) => {
    let pollDelay = 20;
    let poll: ReturnType<typeof setTimeout> | undefined;
    let stopped = false;
    /** The outcome read that waits for its letter's redrive, if one was. */
    let waitsFor: IdempotencyRecord | undefined;
    const finish = (record: IdempotencyRecord) => {
      cleanup();
      resolve(record);
    };
    const consider = (record: IdempotencyRecord) => {
      if (stopped) return;
      if (settles(record)) return finish(record);
      waitsFor = record;
    };
    const unwatch = store.watchOutcomes?.((record) => {
      if (record.key === key) consider(record);
    });
    const timer = setTimeout(() => {
      cleanup();
      const parked = waitsFor !== undefined && heldAtPause(waitsFor);
      const why = !waitsFor
        ? '; it may still be processed'
        : parked
          ? `: its message is parked at ${waitsFor.actorId}, which is paused, and is applied when it is resumed (baton actors resume ${waitsFor.actorId})`
          : `: its message waits as a dead letter of ${waitsFor.actorId}, which a redrive applies (a purge ends it DEAD_LETTERED)`;
      reject(
        new BatonError(
          ErrorCode.ASK_TIMEOUT,
          `no reply to ${key} within ${timeoutMs} ms${why}: ask again with the same idempotencyKey to get its outcome`,
          {
            details: {
              messageId: key,
              timeoutMs,
              ...(waitsFor ? { [parked ? 'parkedAt' : 'deadLetter']: waitsFor.actorId } : {}),
            },
          },
        ),
      );
    }, timeoutMs);
    const cleanup = () => {
      stopped = true;
      clearTimeout(timer);
      if (poll) clearTimeout(poll);
      unwatch?.();
    };
    const tick = async () => {
      const record = await read().catch(() => undefined);
      if (stopped) return;
      if (record) consider(record);
      if (stopped) return;
      pollDelay = Math.min(pollDelay * 2, 1000);
      poll = setTimeout(tick, pollDelay);
    };
    if (!unwatch) poll = setTimeout(tick, pollDelay);
    cancel = cleanup;
    seen = consider;
  });
  // `ask` awaits it only after its own awaits; a timeout meanwhile is not an unhandled rejection.
  outcome.catch(() => {});
  return { record: outcome, cancel, seen: (record) => seen(record) };
}
