/**
 * `baton queue-dead-letters redrive` when SQS refuses the delete that ends a move, on DynamoDB
 * Local and ElasticMQ. The CLI reaches SQS through a loopback proxy in front of ElasticMQ that
 * answers a `DeleteMessage` from the dead-letter queue with AccessDenied (an operator whose role
 * may send and receive there but not delete): the message is then in both queues, and the
 * redrive says so, stops, and exits 1. Its actor applies it once.
 */
import { GetQueueAttributesCommand } from '@aws-sdk/client-sqs';
import { createAwsClients, SqsQueue } from '@baton/aws';
import { afterEach, describe, expect, it } from 'vitest';
import { createOpsDeployment, flagsOf, pumpUntil, runBaton } from './fixtures/opsDeployment.ts';
import { faults, queueMessage, Tally, tallyAdd } from './fixtures/tallyApp.ts';
import { type LoopbackEndpoint, unansweringProxy } from './fixtures/unansweringProxy.ts';

describe('baton queue-dead-letters redrive when SQS refuses the delete, on DynamoDB Local and ElasticMQ', () => {
  let proxy: LoopbackEndpoint | undefined;
  afterEach(async () => {
    await proxy?.close();
  });

  it('stops at the message whose delete failed, says it may be in both queues, and its actor applies it once', async () => {
    faults.poisoned = false;
    const deployment = await createOpsDeployment('qdl-delete');
    const sqsEndpoint = deployment.options['sqs-endpoint']!;
    const sqs = createAwsClients({
      dynamodbEndpoint: deployment.options['dynamodb-endpoint']!,
      sqsEndpoint,
    }).sqs;
    const deadLetters = deployment.options['dead-letter-queue-url']!;
    await new SqsQueue({ client: sqs, queueUrl: deadLetters }).send(
      ['m1', 'm2'].map((entry) => queueMessage(tallyAdd(entry))),
    );
    // The redrive's only DeleteMessage is the dead-letter queue's: the worker has its own client.
    let refused = 0;
    const refusing = await unansweringProxy(sqsEndpoint, (operation) => {
      if (operation !== 'AmazonSQS.DeleteMessage') return 'pass';
      refused++;
      return 'deny';
    });
    proxy = refusing;

    const run = await runBaton([
      'queue-dead-letters',
      'redrive',
      '--yes',
      '--json',
      '--operator',
      'drill',
      ...flagsOf({ ...deployment.options, 'sqs-endpoint': refusing.endpoint }),
    ]);
    expect(run.code, run.err).toBe(1);
    expect(refused).toBe(1);
    const { error } = run.json();
    expect(error.code).toBe('UNAVAILABLE');
    expect(error.message).toContain(
      `moved 1 message(s) into the inbox; the delete of the last (to tally/q) from the dead-letter queue ${deadLetters} failed (AccessDeniedException: not authorized to perform this action), so it may be in both. Its actor applies it once, whichever copy comes first`,
    );
    expect(error.details).toMatchObject({
      moved: 1,
      actor: 'tally/q',
      messageId: expect.any(String),
    });

    // In both: in the inbox, and (hidden while it moved) still in the dead-letter queue, with
    // the message behind it, which the redrive did not reach.
    const { Attributes = {} } = await sqs.send(
      new GetQueueAttributesCommand({ QueueUrl: deadLetters, AttributeNames: ['All'] }),
    );
    expect(
      Number(Attributes.ApproximateNumberOfMessages) +
        Number(Attributes.ApproximateNumberOfMessagesNotVisible),
    ).toBe(2);
    const source = deployment.worker([Tally]);
    const entries = async () =>
      ((await deployment.store.load('tally/q'))?.state as { entries?: string[] } | undefined)
        ?.entries ?? [];
    await pumpUntil(deployment.queue, source, async () => (await entries()).length === 1, 'm1');
    expect(await entries()).toEqual(['m1']);
  });
});
