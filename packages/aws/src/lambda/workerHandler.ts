import { toBatonError } from '@baton/core';
import type { TurnQueue, TurnStore } from '@baton/core/adapter';
import {
  createEngine,
  type EngineOptions,
  type MetricsRecorder,
  type ProcessResult,
  PushWorker,
  releaseReach,
  retryDelays,
  turnMetrics,
} from '@baton/core/engine';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { fromSqsRecord, type SqsEventRecord } from '../sqs/fromSqsRecord.ts';
import type { LambdaInvocation } from './lambdaInvocation.ts';

/**
 * The worker Lambda: an SQS FIFO event source hands it inbox messages; it runs one turn per
 * actor, drains, and returns the messages it could not finish as `batchItemFailures` — a failed
 * message and every later one of its group — so SQS brings them back in order. Each comes back
 * after its retry delay, as from a polling `Worker` (the turn's `retryAfterMs`, a deploy's wait,
 * or 1 s, 2 s, 4 s … by delivery count), not after the queue's visibility timeout, which would
 * hold the actor for minutes. The engine (and its warm record cache) lives as long as the
 * container. It uses the turns' part of a store and a queue only: give it a `DynamoTurnStore`
 * and an `SqsTurnQueue` (a `DynamoStore` and an `SqsQueue` work too, and bundle the sweeper's and
 * a poller's code besides). A workflow's turn starts no step that could end past the
 * invocation's timeout (read from the Lambda context), less a second to commit.
 *
 * @example
 * // worker.ts, the Lambda entry point
 * const { dynamodb, sqs } = createAwsClients();
 * const store = new DynamoTurnStore({ client: dynamodb, tableName: process.env.TABLE_NAME! });
 * const queue = new SqsTurnQueue({ client: sqs, queueUrl: process.env.QUEUE_URL! });
 * export const handler = workerHandler({ actors: [Account], store, queue });
 * // with metrics: workerHandler({ …, metrics: new Metrics({ namespace: 'bank', serviceName: 'worker' }) })
 */
export function workerHandler(
  options: WorkerHandlerOptions,
): (event: SQSEvent, context?: LambdaInvocation) => Promise<SQSBatchResponse> {
  const { metrics, ...engine } = options;
  // The metrics' listener and the app's own, if any, are both told of each turn.
  const record = metrics && turnMetrics(metrics);
  const { onTurn } = engine;
  const told: typeof onTurn =
    record && onTurn
      ? (turn) => {
          record(turn);
          onTurn(turn);
        }
      : (record ?? onTurn);
  const worker = new PushWorker(createEngine({ ...engine, onTurn: told }));
  return async (event, context) => {
    // The event source received the records just before: their 12 hours run from about now.
    const receivedAt = worker.engine.clock.now();
    // A test's stand-in for the context may leave the method out: no deadline then.
    const deadline =
      typeof context?.getRemainingTimeInMillis === 'function'
        ? Date.now() + context.getRemainingTimeInMillis()
        : undefined;
    try {
      const result = await worker.process(event.Records.map(fromSqsRecord), deadline);
      await releaseFailed(worker, event.Records, result, receivedAt);
      return { batchItemFailures: result.failed.map((m) => ({ itemIdentifier: m.receipt })) };
    } finally {
      // Written as CloudWatch EMF log lines: no call to CloudWatch.
      metrics?.publishStoredMetrics();
    }
  };
}

/**
 * Makes each failed record visible again after its retry delay (at most what SQS's 12 hours
 * from the receive leave): the event source leaves it in flight for the rest of the queue's
 * visibility timeout. Best effort: a record not released
 * (the call failed, the record carries no receipt handle, or the queue cannot release) comes
 * back after that timeout.
 */
async function releaseFailed(
  worker: PushWorker,
  records: readonly SqsEventRecord[],
  result: ProcessResult,
  receivedAt: number,
): Promise<void> {
  const { queue, logger, clock } = worker.engine;
  const handles = new Map(records.map((record) => [record.messageId, record.receiptHandle]));
  for (const [delayMs, failed] of retryDelays(result, releaseReach(receivedAt, clock.now()))) {
    const receipts = failed.flatMap((m) => handles.get(m.receipt) ?? []);
    try {
      if (receipts.length > 0) await queue.release?.(receipts, delayMs);
    } catch (error) {
      logger.warn('failed messages come back after the visibility timeout: release failed', {
        delayMs,
        error: toBatonError(error).message,
      });
    }
  }
}

/**
 * The worker's options: the engine's, on the turns' part of a store and a queue, and where its
 * turns' metrics go.
 */
export interface WorkerHandlerOptions extends EngineOptions<TurnStore, TurnQueue> {
  /**
   * Powertools Metrics (`new Metrics({ namespace, serviceName })` from
   * `@aws-lambda-powertools/metrics`), or anything alike: each turn is recorded
   * (`turnMetrics`: duration, batch size, applied, rejected, dead-lettered, parked, retried,
   * version conflicts, errors) and published as EMF at the end of every invocation. An
   * `onTurn` listener of the app's is told of each turn too.
   */
  readonly metrics?: MetricsRecorder & { publishStoredMetrics(): void };
}
