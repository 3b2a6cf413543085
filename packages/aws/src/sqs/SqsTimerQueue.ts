/**
 * Durable timers on AWS without a server: a committed timer is armed as a message on a standard
 * SQS queue, delayed until it is due. SQS delays at most 15 minutes, so a later timer is armed
 * by the sweeper once it is due within them (one armed earlier, by a Baton that armed every
 * timer at once, hops: the relay re-arms it until it is due). The relay then sends its fire
 * into the FIFO inbox.
 */
import type { SendMessageBatchRequestEntry, SQSClient } from '@aws-sdk/client-sqs';
import type { Clock, TimerQueue, TimerRef } from '@baton/core/adapter';
import { systemClock } from '@baton/core/adapter';
import { unavailable } from '../internal/unavailable.ts';
import { SendMessageBatchCommand } from '../sdk.ts';

/** SQS's longest message delay. */
export const MAX_DELAY_SECONDS = 900;
const BATCH_MAX = 10;
/** `SendMessageBatch` calls one `arm` makes at once (a sweep arms up to 500 timers a page). */
const ARM_CONCURRENCY = 8;

export interface SqsTimerQueueOptions {
  readonly client: SQSClient;
  /** The URL of a standard queue, e.g. from `createTimerQueue`. */
  readonly queueUrl: string;
  /** @default the system clock */
  readonly clock?: Clock;
}

/** The delay that brings a timer due at `at` back at `now`: whole seconds, at most 15 min. */
export function armDelaySeconds(at: number, now: number): number {
  return Math.min(MAX_DELAY_SECONDS, Math.max(0, Math.ceil((at - now) / 1000)));
}

/** A timer reference as the timer queue carries it. */
export function encodeTimerRef({ actorId, id, gen, at, name }: TimerRef): string {
  return JSON.stringify({ actorId, id, gen, at, name });
}

export function decodeTimerRef(body: string): TimerRef | undefined {
  try {
    const ref = JSON.parse(body) as Partial<TimerRef>;
    const strings = [ref.actorId, ref.id, ref.gen, ref.name];
    if (strings.every((s) => typeof s === 'string') && Number.isFinite(ref.at)) {
      return ref as TimerRef;
    }
  } catch {
    // not a timer reference
  }
  return undefined;
}

/**
 * The {@link TimerQueue} on a standard SQS queue. Give it to the worker's engine (`timers`);
 * run `relayHandler` on the queue.
 *
 * @example
 * const timers = new SqsTimerQueue({ client: sqs, queueUrl: timerQueueUrl });
 * export const handler = workerHandler({ actors, store, queue, timers });
 */
export class SqsTimerQueue implements TimerQueue {
  readonly queueUrl: string;
  /**
   * SQS's longest delay: a turn arms the timers due within it, the sweeper later ones as they
   * come within it (a timer due in days waits in the table, never hopping through the queue).
   */
  readonly reachMs = MAX_DELAY_SECONDS * 1000;
  readonly #client: SQSClient;
  readonly #clock: Clock;

  constructor(options: SqsTimerQueueOptions) {
    this.queueUrl = options.queueUrl;
    this.#client = options.client;
    this.#clock = options.clock ?? systemClock;
  }

  async arm(timers: readonly TimerRef[]): Promise<void> {
    const now = this.#clock.now();
    const batches: SendMessageBatchRequestEntry[][] = [];
    for (let i = 0; i < timers.length; i += BATCH_MAX) {
      batches.push(
        timers.slice(i, i + BATCH_MAX).map((timer, n) => ({
          Id: String(n),
          MessageBody: encodeTimerRef(timer),
          DelaySeconds: armDelaySeconds(timer.at, now),
        })),
      );
    }
    // A standard queue keeps no order: the batches go out several at a time.
    let next = 0;
    const lane = async () => {
      while (next < batches.length) await this.#send(batches[next++]!);
    };
    await Promise.all(Array.from({ length: Math.min(ARM_CONCURRENCY, batches.length) }, lane));
  }

  async #send(entries: SendMessageBatchRequestEntry[]): Promise<void> {
    let failed: string | undefined;
    try {
      const result = await this.#client.send(
        new SendMessageBatchCommand({ QueueUrl: this.queueUrl, Entries: entries }),
      );
      failed = result.Failed?.map((f) => `${f.Code}: ${f.Message}`).join('; ') || undefined;
    } catch (error) {
      throw unavailable('SQS', 'SendMessageBatch (arm timers)', error);
    }
    if (failed) {
      throw unavailable('SQS', 'SendMessageBatch (arm timers)', new Error(failed), true);
    }
  }
}
