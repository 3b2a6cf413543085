import { invalidArgument, type ReceivedMessage } from '@baton/core/adapter';
import { DEDUPE_ATTRIBUTE, GROUP_ATTRIBUTE } from './sqsIds.ts';

/** What SQS says about one received message, whichever API delivered it. */
export interface SqsDelivery {
  readonly body: string;
  readonly receipt: string;
  readonly sequenceNumber: string | undefined;
  readonly messageGroupId: string | undefined;
  readonly messageDeduplicationId: string | undefined;
  readonly approximateReceiveCount: string | undefined;
  /** The value of a String message attribute. */
  readonly attribute: (name: string) => string | undefined;
}

/**
 * The one mapping from an SQS delivery to the core's {@link ReceivedMessage}, shared by
 * {@link SqsQueue.receive} and {@link fromSqsRecord} so pollers and Lambda agree:
 * - `seq` is SQS's SequenceNumber plus one: the same order, and always above the inbox offset
 *   "0" an actor starts from (ElasticMQ numbers messages from 0);
 * - `group` and `dedupeId` are the originals when SqsQueue had to hash them.
 */
export function toReceivedMessage(delivery: SqsDelivery): ReceivedMessage {
  const original = (name: string) => {
    const value = delivery.attribute(name);
    return value === undefined ? undefined : (JSON.parse(value) as string);
  };
  return {
    group: original(GROUP_ATTRIBUTE) ?? delivery.messageGroupId ?? '',
    dedupeId: original(DEDUPE_ATTRIBUTE) ?? delivery.messageDeduplicationId ?? '',
    body: delivery.body,
    receipt: delivery.receipt,
    seq: toSeq(delivery.sequenceNumber),
    receiveCount: Number(delivery.approximateReceiveCount ?? 1),
  };
}

function toSeq(sequenceNumber: string | undefined): string {
  if (sequenceNumber === undefined || !/^\d+$/.test(sequenceNumber)) {
    throw invalidArgument(
      `an SQS message came without a SequenceNumber (${String(sequenceNumber)}): Baton's inbox must be a FIFO queue`,
    );
  }
  return (BigInt(sequenceNumber) + 1n).toString();
}
