/**
 * SQS refuses a visibility change that would hide a message past 12 hours from its receive;
 * ElasticMQ takes it. So the mapping of that refusal is tested on what SQS answers: a batch's
 * failed entries as the SDK types them, and the same answer over HTTP read by a real SDK client.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type BatchResultErrorEntry, SQSClient } from '@aws-sdk/client-sqs';
import { ErrorCode } from '@baton/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { batchFailure } from './receipts.ts';
import { SqsQueue } from './SqsQueue.ts';

/** What SQS says, word for word, refusing a change past the 12 hours. */
const PAST_LIMIT =
  'Value 43200 for parameter VisibilityTimeout is invalid. Reason: Total VisibilityTimeout for the message is beyond the limit [43200 seconds]';
const refusal: BatchResultErrorEntry = {
  Id: '0',
  SenderFault: true,
  Code: 'InvalidParameterValue',
  Message: PAST_LIMIT,
};
const stale: BatchResultErrorEntry = {
  Id: '1',
  SenderFault: true,
  Code: 'ReceiptHandleIsInvalid',
  Message: 'The input receipt handle is invalid.',
};
const OPERATION = 'ChangeMessageVisibilityBatch';

describe("a release SQS refuses past 12 hours from the message's receive", () => {
  it('is INVALID_ARGUMENT saying what happened and what to do, not UNAVAILABLE', () => {
    const error = batchFailure(OPERATION, [refusal, stale]);
    expect(error).toMatchObject({ code: ErrorCode.INVALID_ARGUMENT });
    expect(error?.message).toBe(
      `SQS ChangeMessageVisibilityBatch failed for 1 receipts (first: InvalidParameterValue: ${PAST_LIMIT}): past 12 h from its receive; none deleted, back after its visibility timeout; see releaseReach`,
    );
    expect(error?.details).toEqual({ service: 'SQS', operation: OPERATION, failed: [refusal] });
  });

  it('leaves any other failure UNAVAILABLE (retryable), and stale receipts ignored', () => {
    const throttled = { Id: '2', SenderFault: false, Code: 'RequestThrottled', Message: 'slow' };
    expect(batchFailure(OPERATION, [refusal, throttled])).toMatchObject({
      code: ErrorCode.UNAVAILABLE,
      message: `SQS ChangeMessageVisibilityBatch failed for 2 receipts (first: InvalidParameterValue: ${PAST_LIMIT})`,
    });
    const outOfRange = { ...refusal, Message: 'VisibilityTimeout must be between 0 and 43200' };
    expect(batchFailure(OPERATION, [outOfRange])).toMatchObject({ code: ErrorCode.UNAVAILABLE });
    expect(batchFailure(OPERATION, [stale])).toBeUndefined();
  });
});

describe('SqsQueue.release, when SQS refuses the 12 hours', () => {
  // Answers every ChangeMessageVisibilityBatch as SQS (JSON protocol) does past the 12 hours.
  const calls: unknown[] = [];
  const server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => {
      body += chunk;
    });
    request.on('end', () => {
      const { Entries } = JSON.parse(body) as { Entries: { Id: string }[] };
      calls.push({ target: request.headers['x-amz-target'], entries: Entries.length });
      response.writeHead(200, { 'content-type': 'application/x-amz-json-1.0' });
      response.end(
        JSON.stringify({ Successful: [], Failed: Entries.map(({ Id }) => ({ ...refusal, Id })) }),
      );
    });
  });
  let client: SQSClient;
  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    client = new SQSClient({
      endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      region: 'us-east-1',
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    });
  });
  afterAll(async () => {
    client.destroy();
    await new Promise((resolve) => server.close(resolve));
  });

  it('throws the INVALID_ARGUMENT of the answer the SDK read', async () => {
    const queue = new SqsQueue({ client, queueUrl: 'http://127.0.0.1/000000000000/inbox.fifo' });
    await expect(queue.release(['r1', 'r2', 'r3'], 43_200_000)).rejects.toMatchObject({
      code: ErrorCode.INVALID_ARGUMENT,
      message: expect.stringMatching(
        /^SQS ChangeMessageVisibilityBatch failed for 3 receipts \(first: InvalidParameterValue: .*beyond the limit \[43200 seconds\]\): past 12 h from its receive; none deleted/,
      ),
    });
    expect(calls).toEqual([{ target: 'AmazonSQS.ChangeMessageVisibilityBatch', entries: 3 }]);
  });
});
