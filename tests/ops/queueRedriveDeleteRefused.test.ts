/**
 * `baton queue-dead-letters redrive` when SQS refuses the delete that ends a move, on DynamoDB
 * Local and ElasticMQ. The CLI reaches SQS through a loopback proxy in front of ElasticMQ that
 * answers a `DeleteMessage` from the dead-letter queue with AccessDenied (an operator whose role
 * may send and receive there but not delete): the message is then in both queues, and the
 * redrive says so, stops, and exits 1. Its actor applies it once.
 */
import { once } from 'node:events';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { GetQueueAttributesCommand } from '@aws-sdk/client-sqs';
import { createAwsClients, SqsQueue } from '@baton/aws';
import { type Envelope, encodeEnvelope, INGRESS } from '@baton/core/adapter';
import { afterEach, describe, expect, it } from 'vitest';
import { createOpsDeployment, flagsOf, pumpUntil, runBaton } from './fixtures/opsDeployment.ts';
import { faults, Tally } from './fixtures/tallyApp.ts';

const add = (entry: string): Envelope => ({
  id: `ingress:["tally/q","${entry}"]`,
  from: INGRESS,
  seq: 0,
  to: 'tally/q',
  name: 'add',
  payload: { entry },
  sentAt: Date.now(),
});

/**
 * A proxy to the SQS endpoint `target` that refuses each `DeleteMessage` (JSON or query
 * protocol) as SQS refuses a caller without `sqs:DeleteMessage`, and counts the refusals.
 */
async function refusingDeletes(
  target: string,
  queue: string,
): Promise<{ url: string; refused: () => number; server: Server }> {
  const to = new URL(target);
  let refused = 0;
  const server = createServer(async (incoming, answer) => {
    const chunks: Buffer[] = [];
    for await (const chunk of incoming) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    const text = body.toString('utf8');
    const action = String(incoming.headers['x-amz-target'] ?? '') + text;
    const deletes = /AmazonSQS\.DeleteMessage\b|Action=DeleteMessage(&|$)/.test(action);
    if (deletes && decodeURIComponent(text).includes(`/${queue}`)) {
      refused++;
      answer.writeHead(400, { 'content-type': 'application/x-amz-json-1.0' });
      answer.end(
        JSON.stringify({
          __type: 'com.amazon.coral.service#AccessDeniedException',
          message: 'not authorized to perform: sqs:DeleteMessage',
        }),
      );
      return;
    }
    const forward = request(
      {
        host: to.hostname,
        port: to.port,
        method: incoming.method,
        path: incoming.url,
        headers: incoming.headers,
      },
      (response) => {
        answer.writeHead(response.statusCode ?? 502, response.headers);
        response.pipe(answer);
      },
    );
    forward.end(body);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, refused: () => refused, server };
}

describe('baton queue-dead-letters redrive when SQS refuses the delete, on DynamoDB Local and ElasticMQ', () => {
  let proxy: Server | undefined;
  afterEach(() => {
    proxy?.close();
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
      ['m1', 'm2'].map((entry) => ({
        group: 'tally/q',
        dedupeId: add(entry).id,
        body: encodeEnvelope(add(entry)),
      })),
    );
    const refusing = await refusingDeletes(sqsEndpoint, deadLetters.split('/').pop()!);
    proxy = refusing.server;

    const run = await runBaton([
      'queue-dead-letters',
      'redrive',
      '--yes',
      '--json',
      '--operator',
      'drill',
      ...flagsOf({ ...deployment.options, 'sqs-endpoint': refusing.url }),
    ]);
    expect(run.code, run.err).toBe(1);
    expect(refusing.refused()).toBe(1);
    const { error } = run.json();
    expect(error.code).toBe('UNAVAILABLE');
    expect(error.message).toContain(
      `moved 1 message(s) into the inbox; the delete of the last (to tally/q) from the dead-letter queue ${deadLetters} failed (AccessDeniedException: not authorized to perform: sqs:DeleteMessage), so it may be in both. Its actor applies it once, whichever copy comes first`,
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
