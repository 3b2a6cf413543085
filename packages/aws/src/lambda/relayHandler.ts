import type { Logger } from '@baton/core';
import { jsonLogger } from '@baton/core';
import type { Clock, Queue, Store, TimerRef } from '@baton/core/adapter';
import { systemClock } from '@baton/core/adapter';
import { fireTimers } from '@baton/core/engine';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { decodeTimerRef, type SqsTimerQueue } from '../sqs/SqsTimerQueue.ts';

export interface RelayOptions {
  /** The FIFO inbox the fires go to. */
  readonly queue: Queue;
  /** The timer queue the relay reads, to re-arm a timer not due yet. */
  readonly timers: SqsTimerQueue;
  /**
   * The actor table: before re-arming a timer not due yet, the relay reads it back and drops a
   * timer no longer stored as it was (cancelled, scheduled anew, fired). Without it, a cancelled
   * timer is re-armed every 15 minutes until due (its fire is still skipped by the actor).
   */
  readonly store?: Pick<Store, 'readTimer'>;
  readonly clock?: Clock;
  readonly logger?: Logger;
}

/** A timer this close to due is fired, not re-armed (SQS delays are whole seconds). */
const EARLY_MS = 1_000;

/**
 * The timer relay Lambda, on the standard timer queue: a timer due now is fired into the FIFO
 * inbox (its fire is deduplicated there, and the actor applies it only while the timer is
 * stored); one due later than SQS's 15-minute delay is armed again for the next hop, if the
 * actor still stores it as it was (one read): a cancelled timer stops hopping. Whether a fire
 * applies is decided by the actor's own turn.
 *
 * @example
 * const timers = new SqsTimerQueue({ client: sqs, queueUrl: process.env.TIMER_QUEUE_URL! });
 * export const handler = relayHandler({ queue, timers, store });
 */
export function relayHandler(
  options: RelayOptions,
): (event: SQSEvent) => Promise<SQSBatchResponse> {
  const clock = options.clock ?? systemClock;
  const logger = options.logger ?? jsonLogger();
  return async (event) => {
    const failures: { itemIdentifier: string }[] = [];
    for (const record of event.Records) {
      const ref = decodeTimerRef(record.body);
      if (!ref) {
        logger.error('timer queue message is not a timer reference; dropped', {
          messageId: record.messageId,
        });
        continue;
      }
      try {
        if (ref.at - clock.now() <= EARLY_MS) await fireTimers(options.queue, [ref]);
        else if (await stillStored(options.store, ref)) await options.timers.arm([ref]);
      } catch (error) {
        logger.warn('timer relay failed; SQS will retry', {
          actor: ref.actorId,
          timer: ref.id,
          error: error instanceof Error ? error.message : String(error),
        });
        failures.push({ itemIdentifier: record.messageId });
      }
    }
    return { batchItemFailures: failures };
  };
}

/**
 * Whether the actor still stores this scheduling of the timer, not fired yet (true when there
 * is no store).
 */
async function stillStored(
  store: Pick<Store, 'readTimer'> | undefined,
  ref: TimerRef,
): Promise<boolean> {
  if (!store) return true;
  const timer = await store.readTimer(ref.actorId, ref.id);
  return timer?.gen === ref.gen && !timer.deadLettered;
}
