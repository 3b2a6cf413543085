import type { ReceivedMessage } from '@baton/core/adapter';
import { toReceivedMessage } from './toReceivedMessage.ts';

/** The parts of a Lambda SQS event record (`SQSRecord` of `aws-lambda`) Baton reads. */
export interface SqsEventRecord {
  readonly messageId: string;
  /** For a release of the record ahead of its visibility timeout (see `workerHandler`). */
  readonly receiptHandle?: string;
  readonly body: string;
  readonly attributes: {
    readonly ApproximateReceiveCount?: string;
    readonly SequenceNumber?: string;
    readonly MessageGroupId?: string;
    readonly MessageDeduplicationId?: string;
  };
  readonly messageAttributes?: Readonly<Record<string, { readonly stringValue?: string }>>;
}

/**
 * A record of a Lambda SQS event as the engine's {@link ReceivedMessage}, mapped exactly as
 * {@link SqsQueue.receive} maps a message (`seq` = SequenceNumber + 1; the original group and
 * dedupe id when SqsQueue hashed them). The receipt is the record's `messageId`: what
 * `batchItemFailures` reports back to Lambda.
 *
 * @example
 * export const handler = async (event: SQSEvent) => {
 *   const result = await worker.process(event.Records.map(fromSqsRecord));
 *   return { batchItemFailures: result.failed.map((m) => ({ itemIdentifier: m.receipt })) };
 * };
 */
export function fromSqsRecord(record: SqsEventRecord): ReceivedMessage {
  return toReceivedMessage({
    body: record.body,
    receipt: record.messageId,
    sequenceNumber: record.attributes.SequenceNumber,
    messageGroupId: record.attributes.MessageGroupId,
    messageDeduplicationId: record.attributes.MessageDeduplicationId,
    approximateReceiveCount: record.attributes.ApproximateReceiveCount,
    attribute: (name) => record.messageAttributes?.[name]?.stringValue,
  });
}
