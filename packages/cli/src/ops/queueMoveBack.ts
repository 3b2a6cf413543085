/**
 * How `queue-dead-letters redrive` puts a message of the inbox's dead-letter queue back into the
 * inbox, and counts the times it did: a message moved back that fails again returns to the
 * dead-letter queue as it left it, so without a count it would look as fresh as one never moved.
 */
import {
  type Message,
  type MessageAttributeValue,
  SendMessageCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import { BatonError, ErrorCode } from '@baton/core';

/**
 * The message attribute that counts a message's redrives. SQS keeps a message's attributes when
 * it moves the message to a dead-letter queue, and the worker reads only Baton's own by name.
 */
export const REDRIVES_ATTRIBUTE = 'BatonRedrives';

/** How many times `message` was moved back into the inbox before: 0 for one never moved. */
export function redrivesOf(message: Message): number {
  const count = Number(message.MessageAttributes?.[REDRIVES_ATTRIBUTE]?.StringValue);
  return Number.isSafeInteger(count) && count > 0 ? count : 0;
}

/**
 * Sends `message` to the inbox as it was (body, group, attributes), under `redrive-<id>`, with
 * its redrive count one higher.
 */
export async function moveBack(sqs: SQSClient, inbox: string, message: Message): Promise<void> {
  try {
    await sqs.send(
      new SendMessageCommand({
        QueueUrl: inbox,
        MessageBody: message.Body ?? '',
        MessageGroupId: message.Attributes?.MessageGroupId,
        MessageDeduplicationId: `redrive-${message.MessageId}`,
        MessageAttributes: {
          ...attributesOf(message),
          [REDRIVES_ATTRIBUTE]: {
            DataType: 'Number',
            StringValue: String(redrivesOf(message) + 1),
          },
        },
      }),
    );
  } catch (error) {
    throw new BatonError(
      ErrorCode.UNAVAILABLE,
      `the inbox refused a redriven message (${(error as Error).message}): it and those after it stay in the dead-letter queue; run the redrive again once the inbox takes it`,
      { cause: error },
    );
  }
}

/** A received message's attributes as a send takes them (only what they hold: strings, bytes). */
function attributesOf(message: Message): Record<string, MessageAttributeValue> {
  const out: Record<string, MessageAttributeValue> = {};
  for (const [name, value] of Object.entries(message.MessageAttributes ?? {})) {
    out[name] = {
      DataType: value.DataType,
      ...(value.StringValue === undefined ? {} : { StringValue: value.StringValue }),
      ...(value.BinaryValue === undefined ? {} : { BinaryValue: value.BinaryValue }),
    };
  }
  return out;
}
