/**
 * How {@link SqsQueue.send} turns messages into `SendMessageBatch` entries: each message's entry
 * (its ids made SQS-safe, the originals kept in attributes) and size, checked against the limit,
 * and the batches they go out in.
 */
import type { MessageAttributeValue, SendMessageBatchRequestEntry } from '@aws-sdk/client-sqs';
import { BatonError, ErrorCode } from '@baton/core';
import { type QueueMessage, queueMessageBytes, sqsAttributeValue } from '@baton/core/adapter';
import { DEDUPE_ATTRIBUTE, GROUP_ATTRIBUTE, toSqsBody, toSqsId } from './sqsIds.ts';

/** Entries per SQS batch call. */
export const BATCH_MAX = 10;

/** A message's batch entry, and its size as SQS counts it. */
export interface Prepared {
  readonly entry: SendMessageBatchRequestEntry;
  readonly bytes: number;
}

/**
 * The batch entry of `message`, the `index`-th of its send; a MESSAGE_TOO_LARGE error when it is
 * over `maxMessageBytes`.
 */
export function prepareEntry(
  message: QueueMessage,
  index: number,
  maxMessageBytes: number,
): Prepared {
  const group = toSqsId(message.group);
  const dedupe = toSqsId(message.dedupeId);
  const body = toSqsBody(message.body);
  // The one measure the embedded queue takes too, so both refuse the same messages.
  const bytes = queueMessageBytes(message);
  let attributes: Record<string, MessageAttributeValue> | undefined;
  if (group.hashed || dedupe.hashed) {
    attributes = {};
    if (group.hashed) {
      attributes[GROUP_ATTRIBUTE] = {
        DataType: 'String',
        StringValue: sqsAttributeValue(message.group),
      };
    }
    if (dedupe.hashed) {
      attributes[DEDUPE_ATTRIBUTE] = {
        DataType: 'String',
        StringValue: sqsAttributeValue(message.dedupeId),
      };
    }
  }
  if (bytes > maxMessageBytes) {
    throw new BatonError(
      ErrorCode.MESSAGE_TOO_LARGE,
      `message ${message.dedupeId} to ${message.group} is ${bytes} bytes, more than SQS's ${maxMessageBytes}-byte limit; nothing was sent`,
      {
        details: {
          dedupeId: message.dedupeId,
          group: message.group,
          limit: maxMessageBytes,
          actual: bytes,
        },
      },
    );
  }
  const entry: SendMessageBatchRequestEntry = {
    Id: String(index),
    MessageBody: body,
    MessageGroupId: group.id,
    MessageDeduplicationId: dedupe.id,
  };
  if (attributes) entry.MessageAttributes = attributes;
  return { bytes, entry };
}

/** Consecutive runs of at most 10 messages and `maxMessageBytes` bytes, in order. */
export function* sendBatches(
  prepared: readonly Prepared[],
  maxMessageBytes: number,
): Generator<Prepared[]> {
  let chunk: Prepared[] = [];
  let bytes = 0;
  for (const p of prepared) {
    if (chunk.length === BATCH_MAX || (chunk.length > 0 && bytes + p.bytes > maxMessageBytes)) {
      yield chunk;
      chunk = [];
      bytes = 0;
    }
    chunk.push(p);
    bytes += p.bytes;
  }
  if (chunk.length > 0) yield chunk;
}
