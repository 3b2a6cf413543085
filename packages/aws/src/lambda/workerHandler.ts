import { createEngine, type EngineOptions, type ReceivedMessage, Worker } from '@baton/core';
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';

/**
 * The worker Lambda: an SQS FIFO event source hands it inbox messages; it runs one turn per
 * actor, drains, and returns the messages it could not finish as `batchItemFailures` — a failed
 * message and every later one of its group — so SQS brings them back in order. The engine (and
 * its warm record cache) lives as long as the container.
 *
 * @example
 * // worker.ts, the Lambda entry point
 * const { store, queue } = awsBackend();
 * export const handler = workerHandler({ actors: [Account], store, queue });
 */
export function workerHandler(
  options: EngineOptions,
): (event: SQSEvent) => Promise<SQSBatchResponse> {
  const worker = new Worker(createEngine(options));
  return async (event) => {
    const result = await worker.process(event.Records.map(toReceived));
    return { batchItemFailures: result.failed.map((m) => ({ itemIdentifier: m.receipt })) };
  };
}

/** An SQS record as the engine sees it; the receipt is the message id Lambda reports back. */
export function toReceived(record: SQSRecord): ReceivedMessage {
  const attributes = record.attributes as SQSRecord['attributes'] & {
    SequenceNumber?: string;
    MessageGroupId?: string;
    MessageDeduplicationId?: string;
  };
  return {
    receipt: record.messageId,
    group: attributes.MessageGroupId ?? '',
    dedupeId: attributes.MessageDeduplicationId ?? record.messageId,
    body: record.body,
    seq: attributes.SequenceNumber ?? '0',
    receiveCount: Number(attributes.ApproximateReceiveCount ?? 1),
  };
}
