import { type Logger, silentLogger, toBatonError } from '@baton/core';
import {
  type ActorRecord,
  type ChangeFeed,
  type IdempotencyRecord,
  invalidArgument,
} from '@baton/core/adapter';
import type { StreamClients } from './createStreamClients.ts';
import { decodeStreamRecord } from './decodeStreamRecord.ts';
import { LatestVersions } from './LatestVersions.ts';
import { type StreamBatch, StreamReader } from './StreamReader.ts';

/**
 * Options of a {@link DynamoStreamFeed}.
 *
 * @example
 * const options: DynamoStreamFeedOptions = { clients: createStreamClients(), tableName: 'baton' };
 */
export interface DynamoStreamFeedOptions {
  /** The DynamoDB and DynamoDB Streams clients, e.g. `createStreamClients()`. */
  readonly clients: StreamClients;
  /** The store's table; it needs its stream of new images ({@link tableDefinition}). */
  readonly tableName: string;
  /** The pause after a read that found nothing, per shard. @default 250 ms */
  readonly pollMs?: number;
  /** How many actors' last delivered versions are remembered, to drop records read twice. @default 100_000 */
  readonly maxTrackedActors?: number;
  /** Where read failures are reported (they are retried). @default silent */
  readonly logger?: Logger;
}

/**
 * The core's `ChangeFeed` on the AWS backend: committed actor records, read from the table's
 * DynamoDB stream, plus `watchOutcomes` for stored ingress outcomes. Each actor's records come
 * in version order, each version at most once; records of one transaction are not kept
 * together, so consumers key on `ver`. Reads from the stream's end: call and await `start()`
 * before relying on it, `stop()` when done.
 *
 * @example
 * const clients = createStreamClients();
 * const feed = new DynamoStreamFeed({ clients, tableName: 'baton' });
 * await feed.start();
 * const engine = new QueryEngine({ queries, actors, store, feed });
 * // …
 * engine.close();
 * await feed.stop();
 */
export class DynamoStreamFeed implements ChangeFeed {
  readonly #reader: StreamReader;
  readonly #logger: Logger;
  readonly #latest: LatestVersions;
  readonly #records = new Set<(record: ActorRecord) => void>();
  readonly #outcomes = new Set<(record: IdempotencyRecord) => void>();

  constructor(options: DynamoStreamFeedOptions) {
    const maxTracked = options.maxTrackedActors ?? 100_000;
    if (!options.clients) throw invalidArgument('clients is required: createStreamClients()');
    if (!Number.isInteger(maxTracked) || maxTracked < 1) {
      throw invalidArgument(`maxTrackedActors must be an integer ≥ 1, got ${maxTracked}`);
    }
    this.#logger = options.logger ?? silentLogger;
    this.#latest = new LatestVersions(maxTracked);
    this.#reader = new StreamReader({
      dynamodb: options.clients.dynamodb,
      streams: options.clients.streams,
      tableName: options.tableName,
      pollMs: options.pollMs ?? 250,
      startingPosition: 'LATEST',
      onBatch: async (batch) => this.#onBatch(batch),
      onError: (error) =>
        this.#logger.warn('change feed: reading the stream failed; retrying', {
          tableName: options.tableName,
          error: toBatonError(error).message,
        }),
    });
  }

  /**
   * Positions the feed at the stream's end: commits made after it resolves are delivered.
   * Throws INVALID_ARGUMENT if the table has no stream of new images.
   */
  start(): Promise<void> {
    return this.#reader.start();
  }

  /** Stops reading; resolves once the last batch has been delivered. */
  stop(): Promise<void> {
    return this.#reader.stop();
  }

  /** Calls `listener` with each committed actor record; returns a function that stops it. */
  subscribe(listener: (record: ActorRecord) => void): () => void {
    return listen(this.#records, listener);
  }

  /** Calls `listener` with each stored idempotency record; returns a function that stops it. */
  watchOutcomes(listener: (record: IdempotencyRecord) => void): () => void {
    return listen(this.#outcomes, listener);
  }

  /** Delivers a batch; returns its size: every record is done (a bad one is logged and skipped). */
  #onBatch({ records }: StreamBatch): number {
    for (const streamRecord of records) {
      let change: ReturnType<typeof decodeStreamRecord>;
      try {
        change = decodeStreamRecord(streamRecord);
      } catch (error) {
        this.#logger.error('change feed: undecodable stream record skipped', {
          sequenceNumber: streamRecord.dynamodb?.SequenceNumber,
          error: toBatonError(error).message,
        });
        continue;
      }
      if (change?.kind === 'record') {
        if (this.#latest.advance(change.record.id, change.record.ver)) {
          this.#emit(this.#records, change.record);
        }
      } else if (change?.kind === 'outcome') {
        this.#emit(this.#outcomes, change.record);
      } else if (change?.kind === 'outcomes') {
        for (const outcome of change.records) this.#emit(this.#outcomes, outcome);
      }
    }
    return records.length;
  }

  #emit<T>(listeners: ReadonlySet<(value: T) => void>, value: T): void {
    for (const listener of [...listeners]) {
      try {
        listener(value);
      } catch (error) {
        this.#logger.error('change feed: a listener threw', { error: toBatonError(error).message });
      }
    }
  }
}

function listen<T>(listeners: Set<(value: T) => void>, listener: (value: T) => void): () => void {
  const entry = (value: T) => listener(value);
  listeners.add(entry);
  return () => {
    listeners.delete(entry);
  };
}
