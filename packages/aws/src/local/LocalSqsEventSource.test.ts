/**
 * Lambda's SQS event source, run locally: its batch size is one SQS takes, checked when it is
 * made, not at each poll against the queue; with a timeout, each call's context counts it down.
 */

import { setTimeout as sleep } from 'node:timers/promises';
import { type Message, ReceiveMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { BatonError, ErrorCode, MAX_RECEIVE_MESSAGES } from '@baton/core';
import { describe, expect, it } from 'vitest';
import { LocalSqsEventSource } from './LocalSqsEventSource.ts';

/** A client that records what it is sent and finds `messages` on the queue, then none. */
function recordingClient(messages: Message[] = []): { client: SQSClient; sent: unknown[] } {
  const sent: unknown[] = [];
  const client = {
    send: async (command: unknown) => {
      sent.push(command);
      return { Messages: command instanceof ReceiveMessageCommand ? messages.splice(0) : [] };
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

  it.each([0, -1, Number.NaN])('refuses a timeoutMs of %s with INVALID_ARGUMENT', (timeoutMs) => {
    const { client } = recordingClient();
    expect(
      () => new LocalSqsEventSource({ client, queueUrl: 'http://local/q', handler, timeoutMs }),
    ).toThrow(expect.objectContaining({ code: ErrorCode.INVALID_ARGUMENT }));
  });

  it("hands the handler a context counting down timeoutMs from the call, as Lambda's", async () => {
    const message = { MessageId: 'm-1', ReceiptHandle: 'r-1', Body: '{}' };
    const remaining: number[][] = [];
    const timed = (timeoutMs?: number) =>
      new LocalSqsEventSource({
        client: recordingClient([message]).client,
        queueUrl: 'http://local/q',
        waitSeconds: 0,
        ...(timeoutMs === undefined ? {} : { timeoutMs }),
        handler: async (_event, context) => {
          const first = context?.getRemainingTimeInMillis() ?? -1;
          await sleep(30);
          remaining.push([first, context?.getRemainingTimeInMillis() ?? -1]);
          return undefined;
        },
      });
    expect(await timed(5_000).pollOnce()).toBe(1);
    const [[first, later]] = remaining as [[number, number]];
    expect(first).toBeGreaterThan(4_900);
    expect(first).toBeLessThanOrEqual(5_000);
    expect(later).toBeLessThanOrEqual(first - 25);
    // Without a timeout, no context: the worker sets no deadline.
    expect(await timed().pollOnce()).toBe(1);
    expect(remaining[1]).toEqual([-1, -1]);
  });
});
