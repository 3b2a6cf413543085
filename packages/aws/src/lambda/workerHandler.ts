import { createEngine, type EngineOptions, Worker } from '@baton/core/engine';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { fromSqsRecord } from '../sqs/fromSqsRecord.ts';

/**
 * The worker Lambda: an SQS FIFO event source hands it inbox messages; it runs one turn per
 * actor, drains, and returns the messages it could not finish as `batchItemFailures` — a failed
 * message and every later one of its group — so SQS brings them back in order. The engine (and
 * its warm record cache) lives as long as the container.
 *
 * @example
 * // worker.ts, the Lambda entry point
 * const { dynamodb, sqs } = createAwsClients();
 * const store = new DynamoStore({ client: dynamodb, tableName: process.env.TABLE_NAME! });
 * const queue = new SqsQueue({ client: sqs, queueUrl: process.env.QUEUE_URL! });
 * export const handler = workerHandler({ actors: [Account], store, queue });
 */
export function workerHandler(
  options: EngineOptions,
): (event: SQSEvent) => Promise<SQSBatchResponse> {
  const worker = new Worker(createEngine(options));
  return async (event) => {
    const result = await worker.process(event.Records.map(fromSqsRecord));
    return { batchItemFailures: result.failed.map((m) => ({ itemIdentifier: m.receipt })) };
  };
}
