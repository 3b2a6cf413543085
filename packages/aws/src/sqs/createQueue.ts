/** Creating an SQS queue and reading its ARN, with failures as UNAVAILABLE. */
import {
  CreateQueueCommand,
  GetQueueAttributesCommand,
  GetQueueUrlCommand,
  SetQueueAttributesCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import { MAX_MESSAGE_BYTES } from '@baton/core';
import { unavailable } from '../internal/unavailable.ts';

/** The attributes a queue takes only when it is created. */
const CREATE_ONLY = new Set(['FifoQueue']);

/**
 * Creates a queue, or updates the attributes of the one that exists under its name (one an
 * earlier version of this code or other options made: SQS refuses a CreateQueue whose attributes
 * differ); returns its URL. Every queue takes SQS's largest message (`MAX_MESSAGE_BYTES`), as
 * the adapters check messages against it (SQS's default is 256 KiB).
 */
export async function createQueue(
  client: SQSClient,
  QueueName: string,
  attributes: Record<string, string>,
): Promise<string> {
  const Attributes = { MaximumMessageSize: String(MAX_MESSAGE_BYTES), ...attributes };
  try {
    const { QueueUrl } = await client.send(new CreateQueueCommand({ QueueName, Attributes }));
    if (!QueueUrl) throw new Error(`CreateQueue returned no URL for ${QueueName}`);
    return QueueUrl;
  } catch (error) {
    if ((error as { name?: unknown }).name === 'QueueNameExists') {
      return updateQueue(client, QueueName, Attributes);
    }
    throw unavailable('SQS', `CreateQueue (${QueueName})`, error);
  }
}

/** Sets the attributes of the queue named `QueueName` that may change; returns its URL. */
async function updateQueue(
  client: SQSClient,
  QueueName: string,
  attributes: Record<string, string>,
): Promise<string> {
  const Attributes = Object.fromEntries(
    Object.entries(attributes).filter(([name]) => !CREATE_ONLY.has(name)),
  );
  try {
    const { QueueUrl } = await client.send(new GetQueueUrlCommand({ QueueName }));
    if (!QueueUrl) throw new Error(`GetQueueUrl returned no URL for ${QueueName}`);
    await client.send(new SetQueueAttributesCommand({ QueueUrl, Attributes }));
    return QueueUrl;
  } catch (error) {
    throw unavailable('SQS', `SetQueueAttributes (${QueueName})`, error);
  }
}

/** The ARN of the queue at `QueueUrl`. */
export async function queueArn(client: SQSClient, QueueUrl: string): Promise<string> {
  try {
    const { Attributes } = await client.send(
      new GetQueueAttributesCommand({ QueueUrl, AttributeNames: ['QueueArn'] }),
    );
    const arn = Attributes?.QueueArn;
    if (!arn) throw new Error(`GetQueueAttributes returned no QueueArn for ${QueueUrl}`);
    return arn;
  } catch (error) {
    throw unavailable('SQS', 'GetQueueAttributes', error);
  }
}
