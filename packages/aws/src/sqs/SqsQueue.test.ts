import { randomUUID } from 'node:crypto';
import {
  CreateQueueCommand,
  DeleteQueueCommand,
  GetQueueAttributesCommand,
  ReceiveMessageCommand,
} from '@aws-sdk/client-sqs';
import { ErrorCode, MAX_MESSAGE_BYTES } from '@baton/core';
import type { QueueMessage, ReceivedMessage } from '@baton/core/adapter';
import { compareSeq } from '@baton/core/adapter';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { createAwsClients } from '../createAwsClients.ts';
import { createFifoQueue, type FifoQueueOptions } from './createFifoQueue.ts';
import { createQueue, queueArn } from './createQueue.ts';
import { fromSqsRecord } from './fromSqsRecord.ts';
import { SqsQueue } from './SqsQueue.ts';
import { SqsTurnQueue } from './SqsTurnQueue.ts';

const { sqs } = createAwsClients({ sqsEndpoint: inject('sqsEndpoint') });
const prefix = `baton-queue-${randomUUID().slice(0, 8)}`;
const created: string[] = [];
let queues = 0;

afterAll(async () => {
  await Promise.all(created.map((QueueUrl) => sqs.send(new DeleteQueueCommand({ QueueUrl }))));
});

/** A fresh FIFO queue (and its DLQ) for one test. */
async function fresh(options: FifoQueueOptions = {}) {
  const made = await createFifoQueue(sqs, `${prefix}-${++queues}`, options);
  created.push(made.queueUrl, made.deadLetterQueueUrl);
  return { ...made, queue: new SqsQueue({ client: sqs, queueUrl: made.queueUrl }) };
}

/** A redrive policy to the queue at `url`. */
async function redrive(url: string, maxReceiveCount: number): Promise<string> {
  return JSON.stringify({ deadLetterTargetArn: await queueArn(sqs, url), maxReceiveCount });
}

function msg(group: string, body: string, dedupeId = `${group}:${body}`): QueueMessage {
  return { group, dedupeId, body };
}

const VT = { visibilityTimeoutMs: 1_000 };
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const show = (messages: readonly ReceivedMessage[]) => messages.map((m) => `${m.group}${m.body}`);

async function failure(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected the promise to reject');
}

/** Receives until `count` messages came or nothing more does. */
async function receiveAll(queue: SqsQueue, count: number): Promise<ReceivedMessage[]> {
  const got: ReceivedMessage[] = [];
  for (let empty = 0; got.length < count && empty < 3; ) {
    const batch = await queue.receive({ max: 10, visibilityTimeoutMs: 30_000 });
    if (batch.length === 0) empty++;
    got.push(...batch);
    await queue.ack(batch.map((m) => m.receipt));
  }
  return got;
}

describe('SqsQueue', () => {
  it('has an identity that a queue deleted and created again under its name does not share', async () => {
    const { queue, queueUrl, deadLetterQueueUrl } = await fresh();
    const first = await queue.identity();
    expect(await queue.identity()).toBe(first);
    const name = queueUrl.slice(queueUrl.lastIndexOf('/') + 1, -'.fifo'.length);
    await sqs.send(new DeleteQueueCommand({ QueueUrl: queueUrl }));
    await sqs.send(new DeleteQueueCommand({ QueueUrl: deadLetterQueueUrl }));
    await sleep(1_100); // creation times are in whole seconds (SQS makes one wait 60 s)
    const again = await createFifoQueue(sqs, name);
    expect(again.queueUrl).toBe(queueUrl);
    const second = await new SqsQueue({ client: sqs, queueUrl }).identity();
    expect(second).toMatch(/^[\w-]{16}$/);
    expect(second).not.toBe(first);
  });

  it('asks for its identity again 30 s after it last did, so a warm queue sees the queue created anew', async () => {
    const { queueUrl, deadLetterQueueUrl } = await fresh();
    let now = 0;
    const queue = new SqsQueue({ client: sqs, queueUrl, clock: { now: () => now } });
    const first = await queue.identity();
    const name = queueUrl.slice(queueUrl.lastIndexOf('/') + 1, -'.fifo'.length);
    await sqs.send(new DeleteQueueCommand({ QueueUrl: queueUrl }));
    await sqs.send(new DeleteQueueCommand({ QueueUrl: deadLetterQueueUrl }));
    await sleep(1_100); // creation times are in whole seconds
    await createFifoQueue(sqs, name);
    // SQS makes one wait 60 s before creating a deleted queue's name again: half of it is
    // always past between an identity read before the deletion and the new queue's messages.
    now += 29_999;
    expect(await queue.identity()).toBe(first);
    now += 1;
    expect(await queue.identity()).not.toBe(first);
  });

  it('takes the queues an earlier version made (without MaximumMessageSize), and refuses to change ones made with other options', async () => {
    const name = `${prefix}-earlier`;
    // As an earlier version made them: no MaximumMessageSize, so SQS refuses today's CreateQueue.
    const fifo = { FifoQueue: 'true', MessageRetentionPeriod: '1209600' };
    const dlq = await createQueue(sqs, `${name}-dlq.fifo`, fifo);
    const earlier = await sqs.send(
      new CreateQueueCommand({
        QueueName: `${name}.fifo`,
        Attributes: { ...fifo, VisibilityTimeout: '30', RedrivePolicy: await redrive(dlq, 5) },
      }),
    );
    created.push(dlq, earlier.QueueUrl!);
    const again = await createFifoQueue(sqs, name);
    expect(again).toMatchObject({ queueUrl: earlier.QueueUrl, deadLetterQueueUrl: dlq });

    // Other options would change a running queue: refused, the queue as it was.
    await expect(
      createFifoQueue(sqs, name, { maxReceives: 9, visibilityTimeoutMs: 45_000 }),
    ).rejects.toMatchObject({
      code: ErrorCode.INVALID_ARGUMENT,
      message: expect.stringMatching(
        /^queue .*-earlier\.fifo exists with other settings \(VisibilityTimeout 30, not 45; RedrivePolicy .*\): call with the options it was made with/,
      ),
    });
    expect(await new SqsQueue({ client: sqs, queueUrl: again.queueUrl }).redrivePolicy()).toEqual({
      maxReceives: 5,
    });
    const { Attributes } = await sqs.send(
      new GetQueueAttributesCommand({ QueueUrl: again.queueUrl, AttributeNames: ['All'] }),
    );
    expect(Attributes?.VisibilityTimeout).toBe('30');
  });

  it('reads the queue redrive policy: its maxReceiveCount, or none', async () => {
    const { queue } = await fresh({ maxReceives: 7 });
    expect(await queue.redrivePolicy()).toEqual({ maxReceives: 7 });
    const plain = await createQueue(sqs, `${prefix}-plain.fifo`, { FifoQueue: 'true' });
    created.push(plain);
    expect(await new SqsQueue({ client: sqs, queueUrl: plain }).redrivePolicy()).toBeUndefined();
  });

  it('delivers the messages of a group in send order, over several batches', async () => {
    const { queue } = await fresh();
    const bodies = Array.from({ length: 23 }, (_, i) => String(i));
    await queue.send(bodies.slice(0, 14).map((b) => msg('g', b)));
    await queue.send(bodies.slice(14).map((b) => msg('g', b)));
    const got = await receiveAll(queue, 23);
    expect(got.map((m) => m.body)).toEqual(bodies);
    expect(got.every((m) => m.receiveCount === 1 && m.group === 'g')).toBe(true);
  });

  it('splits sends by bytes as well as by count, keeping the order', async () => {
    const { queue } = await fresh();
    const big = 'x'.repeat(60_000);
    await queue.send(Array.from({ length: 9 }, (_, i) => msg('g', `${i}${big}`)));
    const got = await receiveAll(queue, 9);
    expect(got.map((m) => m.body[0])).toEqual(['0', '1', '2', '3', '4', '5', '6', '7', '8']);
  });

  it('blocks a whole group while one of its messages is in flight', async () => {
    const { queue } = await fresh();
    await queue.send([msg('a', '1'), msg('a', '2'), msg('b', '1')]);
    const first = await queue.receive({ max: 1, ...VT });
    expect(show(first)).toEqual(['a1']);
    const second = await queue.receive({ max: 10, ...VT });
    expect(show(second)).toEqual(['b1']);
    expect(await queue.receive({ max: 10, ...VT })).toEqual([]);
    await queue.ack([first[0]!.receipt]);
    expect(show(await queue.receive({ max: 10, ...VT }))).toEqual(['a2']);
  });

  it('redelivers an unacknowledged message after its visibility timeout', async () => {
    const { queue } = await fresh();
    await queue.send([msg('g', '1')]);
    const [first] = await queue.receive({ max: 1, ...VT });
    expect(await queue.receive({ max: 1, ...VT })).toEqual([]);
    await sleep(1_300);
    const [again] = await queue.receive({ max: 1, ...VT });
    expect(again).toMatchObject({ body: '1', receiveCount: 2, seq: first!.seq });
    expect(again!.receipt).not.toBe(first!.receipt);
  });

  it('ignores a stale receipt from an earlier delivery', async () => {
    const { queue } = await fresh();
    await queue.send([msg('g', '1')]);
    const [first] = await queue.receive({ max: 1, ...VT });
    await sleep(1_300);
    const [second] = await queue.receive({ max: 1, visibilityTimeoutMs: 30_000 });
    await queue.ack([first!.receipt]);
    await queue.release([first!.receipt], 0);
    expect(await queue.approximateCounts()).toEqual({ visible: 0, inFlight: 1 });
    await queue.ack([second!.receipt, second!.receipt]);
    expect(await queue.approximateCounts()).toEqual({ visible: 0, inFlight: 0 });
  });

  it('ignores a stale receipt in a batch and deletes the others', async () => {
    const { queue } = await fresh();
    await queue.send([msg('g', '1'), msg('h', '2')]);
    const first = await queue.receive({ max: 10, ...VT });
    expect(first).toHaveLength(2);
    await sleep(1_300);
    const second = await queue.receive({ max: 10, visibilityTimeoutMs: 30_000 });
    expect(second).toHaveLength(2);
    await queue.ack([first[0]!.receipt, ...second.map((m) => m.receipt)]);
    expect(await queue.approximateCounts()).toEqual({ visible: 0, inFlight: 0 });
  });

  it('makes released messages visible at once with delay 0', async () => {
    const { queue } = await fresh();
    await queue.send([msg('g', '1'), msg('g', '2')]);
    const got = await queue.receive({ max: 10, visibilityTimeoutMs: 60_000 });
    expect(got).toHaveLength(2);
    await queue.release(
      got.map((m) => m.receipt),
      0,
    );
    const again = await queue.receive({ max: 10, ...VT });
    expect(again.map((m) => [m.body, m.receiveCount])).toEqual([
      ['1', 2],
      ['2', 2],
    ]);
  });

  it('makes released messages visible again after the delay', async () => {
    const { queue } = await fresh();
    await queue.send([msg('g', '1')]);
    const got = await queue.receive({ max: 1, visibilityTimeoutMs: 60_000 });
    await queue.release([got[0]!.receipt], 1_000);
    expect(await queue.receive({ max: 1, ...VT })).toEqual([]);
    await sleep(1_300);
    expect(await queue.receive({ max: 1, ...VT })).toHaveLength(1);
  });

  it('drops a message whose dedupe id was already sent', async () => {
    const { queue } = await fresh();
    await queue.send([msg('g', 'first', 'd1')]);
    const [m] = await queue.receive({ max: 1, ...VT });
    await queue.ack([m!.receipt]);
    await queue.send([msg('g', 'again', 'd1'), msg('g', 'same batch', 'd2'), msg('g', 'x', 'd2')]);
    expect((await receiveAll(queue, 2)).map((r) => r.body)).toEqual(['same batch']);
  });

  it('gives messages increasing sequence numbers, all above the offset "0"', async () => {
    const { queue } = await fresh();
    for (let i = 0; i < 12; i++) await queue.send([msg(`g${i % 3}`, String(i))]);
    const got = await receiveAll(queue, 12);
    expect(got).toHaveLength(12);
    expect(new Set(got.map((m) => m.seq)).size).toBe(12);
    for (const group of ['g0', 'g1', 'g2']) {
      const seqs = got.filter((m) => m.group === group).map((m) => m.seq);
      for (let i = 1; i < seqs.length; i++) {
        expect(compareSeq(seqs[i - 1]!, seqs[i]!)).toBeLessThan(0);
      }
    }
    expect(got.every((m) => compareSeq(m.seq, '0') > 0)).toBe(true);
  });

  it('moves a message to the dead-letter queue after maxReceives receives', async () => {
    const { queue, deadLetterQueueUrl } = await fresh({ maxReceives: 2 });
    await queue.send([msg('g', 'poison'), msg('g', 'next')]);
    for (let i = 1; i <= 2; i++) {
      const got = await queue.receive({ max: 1, ...VT });
      expect(got.map((m) => [m.body, m.receiveCount])).toEqual([['poison', i]]);
      await sleep(1_300);
    }
    // The receive that finds the poison over its limit moves it; a later one gets the next.
    const got = await receiveAll(queue, 1);
    expect(got.map((m) => m.body)).toEqual(['next']);
    const dlq = new SqsQueue({ client: sqs, queueUrl: deadLetterQueueUrl });
    const dead = await dlq.receive({ max: 10, ...VT });
    // ElasticMQ gives a dead letter a new dedupe id; the group and body stay.
    expect(dead.map((m) => [m.group, m.body])).toEqual([['g', 'poison']]);
  });

  it('carries group and dedupe ids that SQS refuses, and still dedupes them', async () => {
    const { queue } = await fresh();
    const group = `account/Zoë & Bob ${'k'.repeat(150)}`;
    const dedupeId = `ingress key with spaces ${'i'.repeat(200)}`;
    await queue.send([{ group, dedupeId, body: '1' }]);
    await queue.send([{ group, dedupeId, body: '2' }]);
    // In a batch too (one message is sent with SendMessage, several with SendMessageBatch).
    await queue.send([
      { group, dedupeId, body: '3' },
      { group, dedupeId: `${dedupeId} again`, body: '4' },
    ]);
    const got = await receiveAll(queue, 2);
    expect(got.map((m) => [m.group, m.dedupeId, m.body])).toEqual([
      [group, dedupeId, '1'],
      [group, `${dedupeId} again`, '4'],
    ]);
  });

  it('maps a Lambda event record as receive maps the message', async () => {
    const { queue, queueUrl } = await fresh();
    const group = 'account/a key with spaces';
    await queue.send([{ group, dedupeId: 'd 1', body: '1' }]);
    const [via] = await queue.receive({ max: 1, visibilityTimeoutMs: 0 });
    // What Lambda's event source mapping hands a function: the message in event-record shape.
    const { Messages = [] } = await sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: queueUrl,
        MessageSystemAttributeNames: ['All'],
        MessageAttributeNames: ['All'],
      }),
    );
    const [m] = Messages;
    const record = {
      messageId: m!.MessageId!,
      body: m!.Body!,
      attributes: m!.Attributes!,
      messageAttributes: Object.fromEntries(
        Object.entries(m!.MessageAttributes ?? {}).map(([k, v]) => [
          k,
          { stringValue: v.StringValue!, dataType: v.DataType! },
        ]),
      ),
    };
    expect(fromSqsRecord(record)).toEqual({
      ...via,
      receipt: m!.MessageId,
      receiveCount: 2,
    });
  });

  it('writes characters SQS refuses in a JSON body as escapes', async () => {
    const { queue } = await fresh();
    const value = { text: 'a\uffffb\ud800c', ok: 'ünï ✓ 😀' };
    await queue.send([msg('g', JSON.stringify(value))]);
    const [got] = await queue.receive({ max: 1, ...VT });
    expect(JSON.parse(got!.body)).toEqual(value);
  });

  it('refuses a message over MAX_MESSAGE_BYTES (1 MiB) as MESSAGE_TOO_LARGE and sends nothing', async () => {
    const { queue } = await fresh();
    const error = await failure(
      queue.send([msg('g', 'small'), msg('g', 'x'.repeat(MAX_MESSAGE_BYTES + 1), 'big')]),
    );
    expect(error).toMatchObject({
      code: ErrorCode.MESSAGE_TOO_LARGE,
      details: { dedupeId: 'big', limit: MAX_MESSAGE_BYTES },
    });
    expect(await queue.approximateCounts()).toEqual({ visible: 0, inFlight: 0 });
  });

  it('reports a queue that does not exist as UNAVAILABLE', async () => {
    const { queueUrl } = await fresh();
    const missing = new SqsQueue({ client: sqs, queueUrl: queueUrl.replace(prefix, 'missing') });
    expect(await failure(missing.send([msg('g', '1')]))).toMatchObject({
      code: ErrorCode.UNAVAILABLE,
    });
    expect(await failure(missing.receive({ max: 1, ...VT }))).toMatchObject({
      code: ErrorCode.UNAVAILABLE,
    });
  });

  it('refuses a queue URL that is not a FIFO queue', () => {
    expect(
      () => new SqsQueue({ client: sqs, queueUrl: 'http://x/q', waitTimeSeconds: 30 }),
    ).toThrow(/waitTimeSeconds.*FIFO/);
  });
});

describe('SqsTurnQueue', () => {
  it("sends into the queue SqsQueue receives from, and reads its identity and redrive policy as SqsQueue does: it is SqsQueue's turns' part", async () => {
    const { queue, queueUrl } = await fresh({ maxReceives: 7 });
    const turns = new SqsTurnQueue({ client: sqs, queueUrl });
    await turns.send([msg('g', '1'), msg('g', '2')]);
    await turns.send([msg('h', '1')]);
    expect(show(await queue.receive({ max: 10, ...VT })).sort()).toEqual(['g1', 'g2', 'h1']);
    expect(await turns.identity()).toBe(await queue.identity());
    expect(await turns.redrivePolicy()).toEqual({ maxReceives: 7 });
    expect(queue).toBeInstanceOf(SqsTurnQueue);
  });

  it('refuses the options SqsQueue refuses, with the same error, but for the receive’s waitTimeSeconds, which it does not take', () => {
    const bad = { client: sqs, queueUrl: 'http://x/q', waitTimeSeconds: 30, maxMessageBytes: 0 };
    const refusal = (make: () => unknown) => {
      try {
        make();
      } catch (error) {
        return error;
      }
      throw new Error('expected the options to be refused');
    };
    const { waitTimeSeconds: _, ...turnOptions } = bad;
    const turns = refusal(() => new SqsTurnQueue(turnOptions));
    expect(turns).toMatchObject({ code: ErrorCode.INVALID_ARGUMENT });
    expect(turns).toEqual(refusal(() => new SqsQueue({ ...bad, waitTimeSeconds: 0 })));
    expect(refusal(() => new SqsQueue(bad))).toMatchObject({
      message: expect.stringMatching(/^invalid SqsQueue options: waitTimeSeconds .*; queueUrl/),
    });
  });
});
