/** Creating an SQS queue and reading its ARN, with failures as UNAVAILABLE. */
import {
  CreateQueueCommand,
  GetQueueAttributesCommand,
  GetQueueUrlCommand,
  SetQueueAttributesCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import { MAX_MESSAGE_BYTES } from '@baton/core';
import { invalidArgument } from '@baton/core/adapter';
import { unavailable } from '../internal/unavailable.ts';

/** What an earlier version left out and a queue that exists may be given now. */
const FILLED_IN = 'MaximumMessageSize';

/**
 * Creates a queue, or takes the one that exists under its name when it differs only by what an
 * earlier version of this code left out (`MaximumMessageSize`, which it then sets: SQS refuses
 * a CreateQueue whose attributes differ); returns its URL. One that exists with other settings
 * is refused (INVALID_ARGUMENT, naming them), so that a script never changes a running queue.
 * Every queue takes SQS's largest message (`MAX_MESSAGE_BYTES`), as the adapters check messages
 * against it (SQS's default is 256 KiB).
 */
export async function createQueue(
  client: SQSClient,
  QueueName: string,
  attributes: Record<string, string>,
): Promise<string> {
  const Attributes = { [FILLED_IN]: String(MAX_MESSAGE_BYTES), ...attributes };
  try {
    const { QueueUrl } = await client.send(new CreateQueueCommand({ QueueName, Attributes }));
    if (!QueueUrl) throw new Error(`CreateQueue returned no URL for ${QueueName}`);
    return QueueUrl;
  } catch (error) {
    if ((error as { name?: unknown }).name === 'QueueNameExists') {
      return takeQueue(client, QueueName, Attributes);
    }
    throw unavailable('SQS', `CreateQueue (${QueueName})`, error);
  }
}

/** The queue named `QueueName` that exists, if only `MaximumMessageSize` differs (then set). */
async function takeQueue(
  client: SQSClient,
  QueueName: string,
  attributes: Record<string, string>,
): Promise<string> {
  let QueueUrl: string | undefined;
  let held: Record<string, string> = {};
  try {
    ({ QueueUrl } = await client.send(new GetQueueUrlCommand({ QueueName })));
    if (!QueueUrl) throw new Error(`GetQueueUrl returned no URL for ${QueueName}`);
    const read = new GetQueueAttributesCommand({ QueueUrl, AttributeNames: ['All'] });
    held = (await client.send(read)).Attributes ?? {};
  } catch (error) {
    throw unavailable('SQS', `GetQueueAttributes (${QueueName})`, error);
  }
  const differ = Object.keys(attributes).filter(
    (name) => name !== FILLED_IN && !sameAttribute(name, held[name], attributes[name]!),
  );
  if (differ.length > 0) {
    throw invalidArgument(
      `queue ${QueueName} exists with other settings (${differ.map((name) => `${name} ${held[name] ?? 'unset'}, not ${attributes[name]}`).join('; ')}): call with the options it was made with, or change it yourself (SetQueueAttributes); a script does not change a running queue`,
    );
  }
  try {
    const size = attributes[FILLED_IN]!;
    if (held[FILLED_IN] !== size) {
      await client.send(
        new SetQueueAttributesCommand({ QueueUrl, Attributes: { [FILLED_IN]: size } }),
      );
    }
    return QueueUrl;
  } catch (error) {
    throw unavailable('SQS', `SetQueueAttributes (${QueueName})`, error);
  }
}

/**
 * Whether a queue's attribute `name` holds `wanted` (a redrive policy compared as JSON). One the
 * queue does not report (an emulator's) is taken as it is.
 */
function sameAttribute(name: string, held: string | undefined, wanted: string): boolean {
  if (held === undefined || held === wanted) return true;
  if (name !== 'RedrivePolicy') return false;
  try {
    const [a, b] = [JSON.parse(held), JSON.parse(wanted)];
    return (
      a.deadLetterTargetArn === b.deadLetterTargetArn &&
      `${a.maxReceiveCount}` === `${b.maxReceiveCount}`
    );
  } catch {
    return false;
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
