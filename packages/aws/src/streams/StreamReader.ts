import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  type _Record,
  DescribeStreamCommand,
  type DynamoDBStreamsClient,
  GetRecordsCommand,
  type GetRecordsCommandOutput,
  GetShardIteratorCommand,
  type Shard,
} from '@aws-sdk/client-dynamodb-streams';
import { isBatonError } from '@baton/core';
import { invalidArgument } from '@baton/core/adapter';
import { awsErrorName, unavailable } from '../internal/unavailable.ts';
import { findStreamArn } from './findStreamArn.ts';

/**
 * Records read from one shard, oldest first.
 *
 * @example
 * const onBatch = ({ shardId, records }: StreamBatch) => console.log(shardId, records.length);
 */
export interface StreamBatch {
  readonly streamArn: string;
  readonly shardId: string;
  readonly records: readonly _Record[];
}

/** Options of a {@link StreamReader}. */
export interface StreamReaderOptions {
  readonly dynamodb: DynamoDBClient;
  readonly streams: DynamoDBStreamsClient;
  readonly tableName: string;
  /**
   * Handles one batch and says how many of its records, from the first, are done; the rest are
   * handed over again, first, after a backoff, before the shard moves on. Throwing counts as
   * none done.
   */
  readonly onBatch: (batch: StreamBatch) => Promise<number>;
  /** Where shards open at `start()` are read from; shards found later always start at their beginning. @default 'LATEST' */
  readonly startingPosition?: 'LATEST' | 'TRIM_HORIZON';
  /** Records per GetRecords call (1–1000). @default 1000 */
  readonly batchSize?: number;
  /** The pause after a GetRecords call that found nothing. @default 250 ms */
  readonly pollMs?: number;
  /** How often the stream is listed for new shards (also done whenever a shard ends). @default 10 s */
  readonly discoverMs?: number;
  /** Called with each failure; the reader backs off and goes on. */
  readonly onError?: (error: unknown) => void;
}

/** One shard being read. */
interface Cursor {
  readonly shardId: string;
  /** Where to begin when no record has been read (again, after a trim). */
  from: 'LATEST' | 'TRIM_HORIZON';
  iterator: string | undefined;
  /** The sequence number of the last record read, to re-position an expired iterator. */
  lastRead: string | undefined;
  /** Records read and not yet done. */
  pending: readonly _Record[];
  /** The shard is closed and read to its end. */
  ended: boolean;
}

const MAX_BACKOFF_MS = 5_000;

/**
 * Reads a table's DynamoDB stream, shard by shard, as a Lambda event source mapping does: finds
 * the stream (DescribeTable), lists its shards (DescribeStream), and runs one GetRecords loop
 * per shard, handing each batch to `onBatch` in order. A shard is read only after its parent
 * has ended, so each item's changes come in order across shard splits. Expired iterators are
 * re-obtained after the last record read; failures are reported and retried with backoff.
 *
 * @example
 * const reader = new StreamReader({ dynamodb, streams, tableName: 'baton', onBatch });
 * await reader.start(); // positioned: later commits will be read
 * // …
 * await reader.stop();
 */
export class StreamReader {
  readonly #options: StreamReaderOptions;
  readonly #pollMs: number;
  readonly #cursors = new Map<string, Cursor>();
  /** Shards read to their end (or skipped, being history at start), still listed by the stream. */
  readonly #ended = new Set<string>();
  readonly #loops = new Set<Promise<void>>();
  #streamArn = '';
  #started: Promise<void> | undefined;
  #discovery: Promise<void> | undefined;
  #abort = new AbortController();
  /** A shard ended (or the reader stops): list the stream again without waiting. */
  #nudged = false;
  #wake: () => void = () => {};

  constructor(options: StreamReaderOptions) {
    const { batchSize = 1000, pollMs = 250, discoverMs = 10_000 } = options;
    const problems: string[] = [];
    if (!options.dynamodb || !options.streams)
      problems.push('dynamodb and streams clients are required');
    if (typeof options.tableName !== 'string' || options.tableName === '') {
      problems.push('tableName must be a non-empty string');
    }
    if (!Number.isInteger(batchSize) || batchSize < 1 || batchSize > 1000) {
      problems.push(`batchSize must be an integer from 1 to 1000, got ${batchSize}`);
    }
    for (const [name, value] of [
      ['pollMs', pollMs],
      ['discoverMs', discoverMs],
    ] as const) {
      if (!Number.isFinite(value) || value < 1) problems.push(`${name} must be ≥ 1, got ${value}`);
    }
    if (problems.length > 0)
      throw invalidArgument(`invalid stream reader options: ${problems.join('; ')}`);
    this.#options = options;
    this.#pollMs = pollMs;
  }

  /** The stream's ARN, once started. */
  get streamArn(): string {
    return this.#streamArn;
  }

  /**
   * Finds the stream and positions an iterator on every open shard; resolves when records
   * committed from now on will be read. Throws INVALID_ARGUMENT if the table has no stream of
   * new images, UNAVAILABLE if AWS cannot be reached (call again to retry).
   */
  start(): Promise<void> {
    this.#started ??= this.#begin().catch((error: unknown) => {
      this.#started = undefined;
      throw error;
    });
    return this.#started;
  }

  /** Ends every loop (after the batch in hand) and resolves once they have ended. */
  async stop(): Promise<void> {
    this.#abort.abort();
    this.#nudge();
    await this.#started?.catch(() => {});
    await this.#discovery;
    await Promise.all(this.#loops);
    this.#cursors.clear();
    this.#ended.clear();
    this.#started = undefined;
    this.#discovery = undefined;
  }

  async #begin(): Promise<void> {
    this.#abort = new AbortController();
    this.#nudged = false;
    const signal = this.#abort.signal;
    this.#streamArn = await findStreamArn(this.#options.dynamodb, this.#options.tableName);
    const shards = await this.#listShards();
    const latest = (this.#options.startingPosition ?? 'LATEST') === 'LATEST';
    const open = latest ? shards.filter((s) => !s.SequenceNumberRange?.EndingSequenceNumber) : [];
    // From LATEST, closed shards are history: their open children are read from LATEST too.
    for (const shard of shards)
      if (latest && !open.includes(shard)) this.#ended.add(shard.ShardId!);
    const positioned = await Promise.all(
      open.map(async (shard) => {
        const cursor = newCursor(shard.ShardId!, 'LATEST');
        cursor.iterator = await this.#iterator(cursor);
        return cursor;
      }),
    );
    if (signal.aborted) return;
    for (const cursor of positioned) this.#read(cursor);
    this.#adopt(shards);
    this.#discovery = this.#discover(signal);
  }

  /** Starts reading listed shards that are new and whose parent has ended (or is gone). */
  #adopt(shards: readonly Shard[]): void {
    const listed = new Set(shards.map((s) => s.ShardId!));
    for (const id of this.#ended) if (!listed.has(id)) this.#ended.delete(id);
    for (const shard of shards) {
      const id = shard.ShardId!;
      if (this.#cursors.has(id) || this.#ended.has(id)) continue;
      const parent = shard.ParentShardId;
      if (parent && listed.has(parent) && !this.#ended.has(parent)) continue;
      this.#read(newCursor(id, 'TRIM_HORIZON'));
    }
  }

  /** Lists the stream again every `discoverMs`, or sooner when a shard ends. */
  async #discover(signal: AbortSignal): Promise<void> {
    let failures = 0;
    while (!signal.aborted) {
      const delay = failures > 0 ? this.#backoff(failures) : (this.#options.discoverMs ?? 10_000);
      if (!this.#nudged) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, delay);
          this.#wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
      }
      this.#nudged = false;
      if (signal.aborted) return;
      try {
        const shards = await this.#listShards();
        if (!signal.aborted) this.#adopt(shards);
        failures = 0;
      } catch (error) {
        failures++;
        this.#options.onError?.(error);
      }
    }
  }

  #nudge(): void {
    this.#nudged = true;
    this.#wake();
  }

  #read(cursor: Cursor): void {
    this.#cursors.set(cursor.shardId, cursor);
    const loop = this.#loop(cursor, this.#abort.signal).finally(() => this.#loops.delete(loop));
    this.#loops.add(loop);
  }

  async #loop(cursor: Cursor, signal: AbortSignal): Promise<void> {
    let failures = 0;
    while (!signal.aborted) {
      let wait = this.#pollMs;
      try {
        if (cursor.pending.length === 0) {
          if (cursor.ended) break;
          await this.#fetch(cursor);
        }
        if (cursor.pending.length > 0) {
          const left = await this.#deliver(cursor);
          failures = left > 0 ? failures + 1 : 0;
          wait = left > 0 ? this.#backoff(failures) : 0;
        } else {
          failures = 0;
          if (cursor.ended) wait = 0;
        }
      } catch (error) {
        failures++;
        this.#options.onError?.(error);
        wait = this.#backoff(failures, error);
      }
      if (wait > 0) await pause(wait, signal);
    }
    if (cursor.ended && cursor.pending.length === 0) {
      this.#cursors.delete(cursor.shardId);
      this.#ended.add(cursor.shardId);
      this.#nudge(); // its children can start now
    }
  }

  /** Reads the next records of the shard into `pending`. */
  async #fetch(cursor: Cursor): Promise<void> {
    cursor.iterator ??= await this.#iterator(cursor);
    let output: GetRecordsCommandOutput;
    try {
      output = await this.#options.streams.send(
        new GetRecordsCommand({ ShardIterator: cursor.iterator, Limit: this.#options.batchSize }),
      );
    } catch (error) {
      const name = awsErrorName(error);
      if (name === 'ExpiredIteratorException') {
        cursor.iterator = undefined; // re-obtained after the last record read
        return;
      }
      if (name === 'TrimmedDataAccessException') {
        // Records past the 24-hour retention are gone: read on from the oldest one left.
        cursor.iterator = undefined;
        cursor.lastRead = undefined;
        cursor.from = 'TRIM_HORIZON';
      }
      throw this.#unavailable('GetRecords', error);
    }
    const records = output.Records ?? [];
    cursor.pending = records;
    cursor.lastRead = records.at(-1)?.dynamodb?.SequenceNumber ?? cursor.lastRead;
    cursor.iterator = output.NextShardIterator;
    if (!output.NextShardIterator) cursor.ended = true;
  }

  /** Hands `pending` to `onBatch`; keeps what is not done; returns how many are left. */
  async #deliver(cursor: Cursor): Promise<number> {
    const records = cursor.pending;
    let done = 0;
    try {
      const result = await this.#options.onBatch({
        streamArn: this.#streamArn,
        shardId: cursor.shardId,
        records,
      });
      done = Math.max(0, Math.min(result, records.length));
    } catch (error) {
      this.#options.onError?.(error);
    }
    cursor.pending = records.slice(done);
    return cursor.pending.length;
  }

  async #iterator(cursor: Cursor): Promise<string> {
    const position = cursor.lastRead
      ? { ShardIteratorType: 'AFTER_SEQUENCE_NUMBER' as const, SequenceNumber: cursor.lastRead }
      : { ShardIteratorType: cursor.from };
    try {
      const { ShardIterator } = await this.#options.streams.send(
        new GetShardIteratorCommand({
          StreamArn: this.#streamArn,
          ShardId: cursor.shardId,
          ...position,
        }),
      );
      if (!ShardIterator) throw new Error(`no iterator for shard ${cursor.shardId}`);
      return ShardIterator;
    } catch (error) {
      throw this.#unavailable('GetShardIterator', error);
    }
  }

  async #listShards(): Promise<Shard[]> {
    const shards: Shard[] = [];
    let start: string | undefined;
    try {
      do {
        const { StreamDescription: stream } = await this.#options.streams.send(
          new DescribeStreamCommand({ StreamArn: this.#streamArn, ExclusiveStartShardId: start }),
        );
        shards.push(...(stream?.Shards ?? []).filter((s) => s.ShardId));
        start = stream?.LastEvaluatedShardId;
      } while (start);
    } catch (error) {
      throw this.#unavailable('DescribeStream', error);
    }
    return shards;
  }

  #unavailable(operation: string, error: unknown) {
    const throttled = awsErrorName(error) === 'LimitExceededException';
    return unavailable('DynamoDB Streams', operation, error, throttled);
  }

  /** Exponential from the poll interval, capped; at least what a throttling error asks. */
  #backoff(failures: number, error?: unknown): number {
    const ms = Math.min(MAX_BACKOFF_MS, Math.max(this.#pollMs, 100) * 2 ** (failures - 1));
    const asked = isBatonError(error) ? (error.retryAfterMs ?? 0) : 0;
    return Math.max(ms, asked);
  }
}

function newCursor(shardId: string, from: Cursor['from']): Cursor {
  return { shardId, from, iterator: undefined, lastRead: undefined, pending: [], ended: false };
}

/** Waits `ms`, or less if `signal` aborts. */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}
