/** Creating an SQS queue and reading its ARN, with failures as UNAVAILABLE. */
import { CreateQueueCommand, GetQueueAttributesCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { unavailable } from '../internal/unavailable.ts';

/** Creates a queue (or finds it, when it exists with the same attributes); returns its URL. */
export async function createQueue(
  client: SQSClient,
  QueueName: string,
  Attributes: Record<string, string>,
): Promise<string> {
  try {
    const { QueueUrl } = await client.send(new CreateQueueCommand({ QueueName, Attributes }));
    if (!QueueUrl) throw new Error(`CreateQueue returned no URL for ${QueueName}`);
    return QueueUrl;
  } catch (error) {
    throw unavailable('SQS', `CreateQueue (${QueueName})`, error);
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
