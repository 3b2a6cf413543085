/**
 * Whether the dead-letter queue a `queue-dead-letters` command names is the inbox's own: the
 * queue the inbox's redrive policy moves its dead letters to. A redrive from any other queue
 * would move its messages into this inbox — another deployment's dead letters, applied to this
 * deployment's actors of the same ids; or the inbox's own messages, named under another spelling
 * of its URL, taken out and sent back into it for good.
 */
import {
  GetQueueAttributesCommand,
  type QueueAttributeName,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import { BatonError, ErrorCode } from '@baton/core';
import { unansweredIn } from './awsClients.ts';

/**
 * Refuses, before anything is read or moved, a dead-letter queue `url` that is not the one the
 * inbox's redrive policy names — unless `force`, for a queue it named before (a DeadLetters queue
 * replaced, or the policy taken off for a while, with messages left in it). The inbox itself is
 * refused even so. A check SQS refuses for want of access (a caller without
 * `sqs:GetQueueAttributes`) lets the command go on, as the inbox's own check does; a queue that
 * does not exist is left to the command's first read of it, which says so.
 */
export async function checkDeadLetterQueueOf(
  sqs: SQSClient,
  inboxUrl: string,
  url: string,
  force = false,
): Promise<void> {
  const inbox = await attributesOf(sqs, inboxUrl, ['QueueArn', 'RedrivePolicy']);
  const queue = await attributesOf(sqs, url, ['QueueArn']);
  if (!inbox?.QueueArn || !queue?.QueueArn) return;
  const refuse = (why: string) =>
    new BatonError(
      ErrorCode.INVALID_ARGUMENT,
      `--dead-letter-queue-url ${url} ${why}; nothing was read or moved`,
      { details: { deadLetterQueueUrl: url, queueUrl: inboxUrl } },
    );
  if (queue.QueueArn === inbox.QueueArn) {
    throw refuse(
      `names the inbox itself (${inboxUrl}, spelt another way): a redrive would take the inbox's messages and send them back into it without end. Pass the inbox's dead-letter queue (the stack's DeadLetters queue), or name the deployment with --stack`,
    );
  }
  const target = deadLetterTarget(inbox.RedrivePolicy);
  if (target === queue.QueueArn || force) return;
  const before =
    ". If it held this inbox's dead letters before its redrive policy changed (a DeadLetters queue replaced), pass --force to take it all the same";
  throw refuse(
    target === undefined
      ? `is not the inbox's dead-letter queue: the inbox ${inboxUrl} has no redrive policy, so SQS moves none of its messages to another queue. Check --queue-url and --dead-letter-queue-url (or BATON_INBOX_URL and BATON_DEAD_LETTER_QUEUE_URL) name one deployment, or name it with --stack${before}`
      : `is not the inbox's dead-letter queue: the inbox ${inboxUrl} moves its dead letters to ${target}, and a redrive from another queue would apply that queue's messages to this deployment's actors. Pass the URL of ${target}, or name the deployment with --stack (and check BATON_DEAD_LETTER_QUEUE_URL is not left over from another)${before}`,
  );
}

/** The errors of a queue SQS will not describe to this caller, or does not have. */
const UNTOLD = /AccessDenied|NotAuthorized|Unauthorized|QueueDoesNotExist|NonExistentQueue/;

/**
 * The queue's `names` attributes; `undefined` when SQS will not tell this caller or has no such
 * queue. Any other failure (throttling, SQS not answering) fails the command: the check is not
 * skipped for it.
 */
async function attributesOf(
  sqs: SQSClient,
  url: string,
  names: QueueAttributeName[],
): Promise<Record<string, string> | undefined> {
  try {
    const read = new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: names });
    return (await sqs.send(read)).Attributes;
  } catch (error) {
    if (unansweredIn(error) || !UNTOLD.test((error as Error).name)) throw error;
    return undefined;
  }
}

/** The ARN a redrive policy moves dead letters to, if it parses and names one. */
function deadLetterTarget(policy: string | undefined): string | undefined {
  if (policy === undefined) return undefined;
  try {
    const { deadLetterTargetArn } = JSON.parse(policy) as { deadLetterTargetArn?: unknown };
    return typeof deadLetterTargetArn === 'string' ? deadLetterTargetArn : undefined;
  } catch {
    return undefined;
  }
}
