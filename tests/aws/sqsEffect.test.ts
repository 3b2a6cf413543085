/**
 * `sqsEffect` on ElasticMQ: an actor's effect lands on an SQS queue outside Baton with its
 * idempotency key; on a FIFO queue a retried run within the dedupe window is dropped by SQS.
 */
import { randomUUID } from 'node:crypto';
import { ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import { createAwsClients, createFifoQueue, sqsEffect } from '@baton/aws';
import { actor, silentLogger } from '@baton/core';
import { actorMessageId } from '@baton/core/adapter';
import { Client } from '@baton/core/client';
import { createEngine, Worker } from '@baton/core/engine';
import { createEmbeddedBackend } from '@baton/embedded';
import { describe, expect, inject, it } from 'vitest';
import * as z from 'zod';

describe('sqsEffect', () => {
  it('sends the payload with the idempotency key, and SQS FIFO drops a retried run', async () => {
    const { sqs } = createAwsClients({
      dynamodbEndpoint: inject('dynamodbEndpoint'),
      sqsEndpoint: inject('sqsEndpoint'),
    });
    const { queueUrl } = await createFifoQueue(sqs, `shipping-${randomUUID().slice(0, 8)}`);
    const Shipped = sqsEffect({
      name: 'shipped',
      client: sqs,
      queueUrl,
      payload: z.object({ order: z.string() }),
    });
    const Order = actor({
      name: 'order',
      state: z.object({}),
      initial: () => ({}),
      handlers: {
        ship: {
          payload: z.object({}),
          handle: (ctx) => ctx.effect(Shipped, { order: ctx.self.key }),
        },
      },
    });
    const backend = createEmbeddedBackend();
    const engine = createEngine({
      actors: [Order],
      effects: [Shipped],
      store: backend.store,
      queue: backend.queue,
      logger: silentLogger,
    });
    await new Client({ actors: [Order], store: backend.store, queue: backend.queue })
      .asSystem()
      .send(Order.ref('o-1'), 'ship', {});
    const worker = new Worker(engine);
    while ((await worker.poll()) > 0);
    // A retry of the same run (as after a crash before its message was acknowledged).
    const { life } = (await backend.store.load('order/o-1'))!;
    const idempotencyKey = actorMessageId('order/o-1', 1, life);
    await Shipped.run({ order: 'o-1' }, { idempotencyKey, actor: 'order/o-1', attempt: 2 });

    const { Messages = [] } = await sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: queueUrl,
        MaxNumberOfMessages: 10,
        MessageAttributeNames: ['All'],
      }),
    );
    expect(Messages).toHaveLength(1);
    expect(JSON.parse(Messages[0]!.Body!)).toEqual({ order: 'o-1' });
    expect(Messages[0]!.MessageAttributes?.idempotencyKey?.StringValue).toBe(idempotencyKey);
    backend.close();
  });
});
