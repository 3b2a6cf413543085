import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { DynamoDBStreamsClient } from '@aws-sdk/client-dynamodb-streams';
import type { DynamoDBBatchResponse, DynamoDBStreamEvent } from 'aws-lambda';
import { type StreamBatch, StreamReader } from '../streams/StreamReader.ts';
import { toLambdaStreamRecord } from '../streams/toLambdaStreamRecord.ts';

/**
 * Options of a {@link LocalStreamEventSource}.
 *
 * @example
 * const options: LocalStreamEventSourceOptions = { dynamodb, streams, tableName, handler };
 */
export interface LocalStreamEventSourceOptions {
  readonly dynamodb: DynamoDBClient;
  readonly streams: DynamoDBStreamsClient;
  readonly tableName: string;
  /** The Lambda handler; records of a batch it reports in batchItemFailures (or all, if it throws) are redelivered from the first failed one. */
  readonly handler: (
    event: DynamoDBStreamEvent,
    // biome-ignore lint/suspicious/noConfusingVoidType: Lambda's DynamoDBStreamHandler may return void
  ) => Promise<DynamoDBBatchResponse | undefined | void>;
  /** Records per event (1–1000). @default 100 */
  readonly batchSize?: number;
  /** The pause after a read that found nothing, per shard. @default 100 */
  readonly pollMs?: number;
  /** Where shards open at `start()` are read from. @default 'LATEST' */
  readonly startingPosition?: 'LATEST' | 'TRIM_HORIZON';
  /** Called when a read or a handler call fails; the source backs off and goes on. */
  readonly onError?: (error: unknown) => void;
}

/**
 * Lambda's DynamoDB Streams event source mapping, run locally: reads the table's stream shard
 * by shard and calls the handler with a `DynamoDBStreamEvent` per batch, in order within a
 * shard. A batch the handler fails (throwing, or listing records in `batchItemFailures` by
 * sequence number) is retried from its first failed record, after a backoff, before the shard
 * moves on — as Lambda does with batch item failure reporting on and no retry limit. For the
 * local emulators and tests; in AWS the real event source mapping does this.
 *
 * @example
 * const { dynamodb, streams } = createStreamClients();
 * const source = new LocalStreamEventSource({ dynamodb, streams, tableName: 'baton', handler });
 * await source.start(); // records committed from now on reach the handler
 * // …
 * await source.stop();
 */
export class LocalStreamEventSource {
  readonly #reader: StreamReader;
  readonly #handler: LocalStreamEventSourceOptions['handler'];

  constructor(options: LocalStreamEventSourceOptions) {
    this.#handler = options.handler;
    this.#reader = new StreamReader({
      dynamodb: options.dynamodb,
      streams: options.streams,
      tableName: options.tableName,
      batchSize: options.batchSize ?? 100,
      pollMs: options.pollMs ?? 100,
      startingPosition: options.startingPosition ?? 'LATEST',
      onBatch: (batch) => this.#invoke(batch),
      ...(options.onError ? { onError: options.onError } : {}),
    });
  }

  /** Finds the stream and positions on it; resolves when later records will reach the handler. */
  start(): Promise<void> {
    return this.#reader.start();
  }

  /** Stops after the batches in hand; resolves once they are done. */
  stop(): Promise<void> {
    return this.#reader.stop();
  }

  /** Calls the handler; returns how many records, from the first, it has done. */
  async #invoke({ records, streamArn }: StreamBatch): Promise<number> {
    const event: DynamoDBStreamEvent = {
      Records: records.map((record) => toLambdaStreamRecord(record, streamArn)),
    };
    const response = await this.#handler(event);
    const failures = response?.batchItemFailures ?? [];
    if (failures.length === 0) return records.length;
    const positions = failures.map((failure) =>
      event.Records.findIndex((r) => r.dynamodb?.SequenceNumber === failure.itemIdentifier),
    );
    // As in Lambda, an identifier that names no record of the batch fails the whole batch.
    return positions.some((i) => i < 0) ? 0 : Math.min(...positions);
  }
}
