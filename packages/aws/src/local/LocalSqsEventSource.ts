import { setTimeout as sleep } from 'node:timers/promises';
import {
  DeleteMessageBatchCommand,
  type Message,
  ReceiveMessageCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import { MAX_RECEIVE_MESSAGES } from '@baton/core';
import { invalidArgument } from '@baton/core/adapter';
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import type { LambdaInvocation } from '../lambda/lambdaInvocation.ts';

export interface LocalSqsEventSourceOptions {
  readonly client: SQSClient;
  readonly queueUrl: string;
  /**
   * The Lambda handler to feed. With `timeoutMs`, it gets a context as Lambda's, counting down
   * from the call: `workerHandler` starts no workflow step that could end past it.
   */
  readonly handler: (
    event: SQSEvent,
    context?: LambdaInvocation,
  ) => Promise<SQSBatchResponse | undefined>;
  /**
   * The function's timeout, as a deployed worker's (`BatonApp`'s `workerTimeout`): each call's
   * context says how much of it is left. Nothing stops a call that outruns it. @default no
   * context, no deadline
   */
  readonly timeoutMs?: number;
  /**
   * Messages per event: an integer from 1 to `MAX_RECEIVE_MESSAGES` (10), the most an SQS
   * receive returns. @default 10
   */
  readonly batchSize?: number;
  /** @default 30 s */
  readonly visibilityTimeoutMs?: number;
  /** Long-poll wait per receive. @default 1 s */
  readonly waitSeconds?: number;
  /** Called when a receive or a handler call fails; the loop goes on. */
  readonly onError?: (error: unknown) => void;
}

/**
 * Lambda's SQS event source mapping, run locally: long-polls the queue, calls the handler with
 * an `SQSEvent`, deletes the records not listed in `batchItemFailures`, and leaves those to come
 * back after their visibility timeout. For the local AWS emulators and tests; in AWS the real
 * event source mapping does this.
 *
 * @example
 * const source = new LocalSqsEventSource({ client: sqs, queueUrl, handler });
 * source.start();
 * // …
 * await source.stop();
 */
export class LocalSqsEventSource {
  readonly #options: LocalSqsEventSourceOptions;
  #running: Promise<void> | undefined;
  #stopping = false;

  /**
   * A `batchSize` that is not an integer from 1 to `MAX_RECEIVE_MESSAGES` is refused with
   * INVALID_ARGUMENT: SQS and ElasticMQ refuse such a receive, and every poll would fail.
   */
  constructor(options: LocalSqsEventSourceOptions) {
    const { batchSize, timeoutMs } = options;
    if (timeoutMs !== undefined && !(timeoutMs > 0)) {
      throw invalidArgument(
        `timeoutMs must be a number of milliseconds above 0, got ${timeoutMs}`,
        {
          option: 'timeoutMs',
          value: timeoutMs,
        },
      );
    }
    if (
      batchSize !== undefined &&
      (!Number.isInteger(batchSize) || batchSize < 1 || batchSize > MAX_RECEIVE_MESSAGES)
    ) {
      throw invalidArgument(
        `batchSize must be an integer from 1 to ${MAX_RECEIVE_MESSAGES} (SQS's most messages a receive), got ${batchSize}`,
        { option: 'batchSize', value: batchSize },
      );
    }
    this.#options = options;
  }

  start(): void {
    this.#stopping = false;
    this.#running ??= this.#loop();
  }

  /** Stops after the batch in hand. */
  async stop(): Promise<void> {
    this.#stopping = true;
    await this.#running;
    this.#running = undefined;
  }

  /** Receives one batch and hands it to the handler; returns how many messages it got. */
  async pollOnce(): Promise<number> {
    const { client, queueUrl, handler, timeoutMs } = this.#options;
    const visibilitySeconds = Math.ceil((this.#options.visibilityTimeoutMs ?? 30_000) / 1000);
    const received = await client.send(
      new ReceiveMessageCommand({
        QueueUrl: queueUrl,
        MaxNumberOfMessages: this.#options.batchSize ?? 10,
        VisibilityTimeout: visibilitySeconds,
        WaitTimeSeconds: this.#options.waitSeconds ?? 1,
        MessageSystemAttributeNames: ['All'],
        MessageAttributeNames: ['All'],
      }),
    );
    const messages = received.Messages ?? [];
    if (messages.length === 0) return 0;
    const records = messages.map((m) => toRecord(m, queueUrl));
    let failed = new Set<string>(records.map((r) => r.messageId));
    try {
      const response = await handler({ Records: records }, invocation(timeoutMs));
      failed = new Set((response?.batchItemFailures ?? []).map((f) => f.itemIdentifier));
    } catch (error) {
      this.#options.onError?.(error);
    }
    const done = records.filter((r) => !failed.has(r.messageId));
    for (let i = 0; i < done.length; i += 10) {
      await client.send(
        new DeleteMessageBatchCommand({
          QueueUrl: queueUrl,
          Entries: done
            .slice(i, i + 10)
            .map((r, j) => ({ Id: String(j), ReceiptHandle: r.receiptHandle })),
        }),
      );
    }
    // Failed records stay hidden until their visibility timeout, as with Lambda.
    return messages.length;
  }

  async #loop(): Promise<void> {
    while (!this.#stopping) {
      try {
        await this.pollOnce();
      } catch (error) {
        this.#options.onError?.(error);
        await sleep(200);
      }
    }
  }
}

/** A context counting down `timeoutMs` from now, as Lambda's does from the invocation's start. */
function invocation(timeoutMs: number | undefined): LambdaInvocation | undefined {
  if (timeoutMs === undefined) return undefined;
  const end = Date.now() + timeoutMs;
  return { getRemainingTimeInMillis: () => Math.max(0, end - Date.now()) };
}

function toRecord(message: Message, queueUrl: string): SQSRecord {
  const a = message.Attributes ?? {};
  return {
    messageId: message.MessageId ?? '',
    receiptHandle: message.ReceiptHandle ?? '',
    body: message.Body ?? '',
    attributes: {
      ApproximateReceiveCount: a.ApproximateReceiveCount ?? '1',
      SentTimestamp: a.SentTimestamp ?? '0',
      SenderId: a.SenderId ?? 'local',
      ApproximateFirstReceiveTimestamp: a.ApproximateFirstReceiveTimestamp ?? '0',
      ...(a.SequenceNumber ? { SequenceNumber: a.SequenceNumber } : {}),
      ...(a.MessageGroupId ? { MessageGroupId: a.MessageGroupId } : {}),
      ...(a.MessageDeduplicationId ? { MessageDeduplicationId: a.MessageDeduplicationId } : {}),
    },
    messageAttributes: Object.fromEntries(
      Object.entries(message.MessageAttributes ?? {}).map(([name, value]) => [
        name,
        {
          stringValue: value.StringValue,
          dataType: value.DataType ?? 'String',
          stringListValues: [],
          binaryListValues: [],
        },
      ]),
    ),
    md5OfBody: message.MD5OfBody ?? '',
    eventSource: 'aws:sqs',
    eventSourceARN: queueUrl,
    awsRegion: 'local',
  };
}
