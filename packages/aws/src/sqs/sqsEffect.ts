/**
 * An effect that sends its payload to an SQS queue outside Baton. On a FIFO queue the run's
 * idempotency key is the deduplication id, so SQS drops a retry within its 5-minute window; on
 * any queue it travels as the `idempotencyKey` message attribute, for the consumer to check.
 */
import { SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { type EffectDefinition, effect, type Schema } from '@baton/core';
import { unavailable } from '../internal/unavailable.ts';
import { toSqsId } from './sqsIds.ts';

/**
 * @example
 * const Shipped = sqsEffect({
 *   name: 'shipped',
 *   client: createAwsClients().sqs,
 *   queueUrl: process.env.SHIPPING_QUEUE_URL!,
 *   payload: z.object({ order: z.string() }),
 * });
 */
export function sqsEffect<const Name extends string, Payload extends Schema>(options: {
  readonly name: Name;
  readonly client: SQSClient;
  readonly queueUrl: string;
  readonly payload: Payload;
  /** The message group on a FIFO queue. @default the asking actor's id */
  readonly groupOf?: (actor: string) => string;
}): EffectDefinition<Name, Payload> {
  const fifo = options.queueUrl.endsWith('.fifo');
  return effect({
    name: options.name,
    payload: options.payload,
    run: async (payload, { idempotencyKey, actor }) => {
      try {
        await options.client.send(
          new SendMessageCommand({
            QueueUrl: options.queueUrl,
            MessageBody: JSON.stringify(payload),
            MessageAttributes: {
              idempotencyKey: { DataType: 'String', StringValue: idempotencyKey },
            },
            ...(fifo
              ? {
                  MessageGroupId: toSqsId(options.groupOf?.(actor) ?? actor).id,
                  MessageDeduplicationId: toSqsId(idempotencyKey).id,
                }
              : {}),
          }),
        );
      } catch (error) {
        throw unavailable('SQS', `SendMessage (effect ${options.name})`, error);
      }
    },
  });
}
