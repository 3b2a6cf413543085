/**
 * Lambda's SQS event source, run locally: its batch size is one SQS takes, checked when it is
 * made, not at each poll against the queue.
 */
import { ReceiveMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { BatonError, ErrorCode, MAX_RECEIVE_MESSAGES } from '@baton/core';
import { describe, expect, it } from 'vitest';
import { LocalSqsEventSource } from './LocalSqsEventSource.ts';

/** A client that records what it is sent and finds the queue empty. */
function recordingClient(): { client: SQSClient; sent: unknown[] } {
  const sent: unknown[] = [];
  const client = {
    send: async (command: unknown) => {
      sent.push(command);
      return { Messages: [] };
    },
  } as unknown as SQSClient;
  return { client, sent };
}

const handler = async () => undefined;

describe('LocalSqsEventSource', () => {
  it.each([MAX_RECEIVE_MESSAGES + 1, 0, 2.5, Number.NaN])(
    'refuses a batchSize of %s with INVALID_ARGUMENT, asking SQS nothing',
    (batchSize) => {
      const { client, sent } = recordingClient();
      let refusal: unknown;
      try {
        new LocalSqsEventSource({ client, queueUrl: 'http://local/q', handler, batchSize });
      } catch (error) {
        refusal = error;
      }
      expect(refusal).toBeInstanceOf(BatonError);
      expect(refusal).toMatchObject({
        code: ErrorCode.INVALID_ARGUMENT,
        message: expect.stringContaining(`batchSize must be an integer from 1 to 10`),
      });
      expect(sent).toEqual([]);
    },
  );

  it.each([
    [1, 1],
    [MAX_RECEIVE_MESSAGES, MAX_RECEIVE_MESSAGES],
    [undefined, MAX_RECEIVE_MESSAGES],
  ])('takes a batchSize of %s and receives %s at a time', async (batchSize, asked) => {
    const { client, sent } = recordingClient();
    const source = new LocalSqsEventSource({
      client,
      queueUrl: 'http://local/q',
      handler,
      waitSeconds: 0,
      ...(batchSize === undefined ? {} : { batchSize }),
    });
    expect(await source.pollOnce()).toBe(0);
    expect(sent).toHaveLength(1);
    expect(sent[0]).toBeInstanceOf(ReceiveMessageCommand);
    expect((sent[0] as ReceiveMessageCommand).input.MaxNumberOfMessages).toBe(asked);
  });
});
