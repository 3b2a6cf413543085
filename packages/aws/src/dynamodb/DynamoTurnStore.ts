import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type {
  ActorRecord,
  Clock,
  Commit,
  DeadLetter,
  IdempotencyRecord,
  OutboxItem,
  OutcomeReadOptions,
  OverflowKey,
  OverflowMark,
  PagedOutcome,
  StoreLimits,
  Timer,
  TurnStore,
} from '@baton/core/adapter';
import {
  checkCommitAsMeasured,
  checkCount,
  ingressTarget,
  refuseOptions,
  systemClock,
} from '@baton/core/adapter';
import { PutItemCommand, TransactWriteItemsCommand } from '../sdk.ts';
import { batchDeleteItems, batchGetItems } from './batchItems.ts';
import { clientRequestToken } from './clientRequestToken.ts';
import { commitItems } from './commitItems.ts';
import { listActorDeadLetters, readDeadLetter } from './deadLetterItems.ts';
import { markEffectsDone, readEffectsDone } from './effectMarks.ts';
import {
  type Item,
  itemKey,
  itemToIdempotency,
  itemToOutbox,
  itemToOverflow,
  itemToRecord,
  itemToTimer,
} from './itemCodec.ts';
import { mapTransactionError, pageExistedOnly } from './mapTransactionError.ts';
import { readPages } from './outcomePages.ts';
import { getItem, queryActorItems } from './readItems.ts';
import {
  actorPk,
  DYNAMO_STORE_LIMITS,
  IDEMPOTENCY_SK,
  idempotencyPk,
  MAX_OUTBOX_SHARDS,
  OUTBOX_SK_PREFIX,
  outboxSk,
  overflowSk,
  RECORD_SK,
  TIMER_SK_PREFIX,
  timerSk,
} from './tableLayout.ts';

/** Options of a `DynamoStore`, and of a {@link DynamoTurnStore}. */
export interface DynamoStoreOptions {
  /** A DynamoDB client, e.g. `createAwsClients().dynamodb`. */
  readonly client: DynamoDBClient;
  /** A table laid out as {@link tableDefinition} says. */
  readonly tableName: string;
  /** Decides when idempotency records expire. @default the system clock */
  readonly clock?: Clock;
  /**
   * Lower limits than DynamoDB's (e.g. to test splitting). Raising them only moves the failure
   * from this store's check to DynamoDB's. @default {@link DYNAMO_STORE_LIMITS}
   */
  readonly limits?: Partial<StoreLimits>;
  /**
   * How many partition-key values the outbox index spreads its writes over, so the index is
   * not one hot partition (about 1,000 writes/s each). Only ever raise it on a live table:
   * items in shards beyond the new count would be missed by the sweeper. @default 8
   */
  readonly outboxShards?: number;
}

/** The client and the table, as the item functions take them (dead letters, marks, held sends). */
export interface DynamoTable {
  readonly client: DynamoDBClient;
  readonly tableName: string;
  readonly shards: number;
  readonly clock: Clock;
}

/**
 * The part of `DynamoStore` a worker's turns use ({@link TurnStore}): what a worker
 * Lambda constructs, so that its bundle holds no code of the sweeper's, the client's or the
 * tools' part. Same options, same table, same behaviour.
 *
 * A commit whose sends fit in the actor record (`ActorRecord.outbox`) and that writes nothing
 * else is one conditional `PutItem` of the record. Any other commit is one
 * `TransactWriteItems`: the actor record on a version condition, the outbox items, and the
 * idempotency records on "absent or expired" — all or nothing, with a `ClientRequestToken` so
 * the SDK's retries cannot apply it twice. Failures come back as the
 * core's errors ({@link mapTransactionError}). Reads the engine relies on are consistent.
 *
 * @example
 * const { dynamodb } = createAwsClients();
 * const store = new DynamoTurnStore({ client: dynamodb, tableName: process.env.TABLE_NAME! });
 * export const handler = workerHandler({ actors: [Account], store, queue });
 */
export class DynamoTurnStore implements TurnStore {
  readonly limits: StoreLimits;
  readonly tableName: string;
  readonly #client: DynamoDBClient;
  readonly #clock: Clock;
  readonly #shards: number;
  /** The client and table, for the item functions and for `DynamoStore`'s other parts. */
  protected readonly table: DynamoTable;

  constructor(options: DynamoStoreOptions) {
    const shards = options.outboxShards ?? 8;
    const problems: string[] = [];
    if (!options.client) problems.push('client is required');
    if (typeof options.tableName !== 'string' || options.tableName === '') {
      problems.push('tableName must be a non-empty string');
    }
    checkCount(problems, 'outboxShards', shards, MAX_OUTBOX_SHARDS);
    const limits = { ...DYNAMO_STORE_LIMITS, ...definedOnly(options.limits ?? {}) };
    for (const [name, value] of Object.entries(limits)) {
      checkCount(problems, `limits.${name}`, value);
    }
    refuseOptions('DynamoStore', problems);
    this.#client = options.client;
    this.tableName = options.tableName;
    this.#clock = options.clock ?? systemClock;
    this.#shards = shards;
    this.table = { client: this.#client, tableName: this.tableName, shards, clock: this.#clock };
    this.limits = Object.freeze(limits);
  }

  async load(actorId: string): Promise<ActorRecord | undefined> {
    const item = await this.#get(actorPk(actorId), RECORD_SK, 'GetItem (load)');
    return item && itemToRecord(item);
  }

  async commit(commit: Commit): Promise<void> {
    checkCommitAsMeasured(commit, this.limits);
    try {
      await this.#write(commit, true);
    } catch (error) {
      const now = this.#clock.now();
      if (!commit.outcomes?.begins || !pageExistedOnly(error, commit, now)) {
        throw mapTransactionError(error, commit, this.limits, now);
      }
      // The page it began was left by an earlier life: append to it per outcome.
      try {
        await this.#write(commit, false);
      } catch (again) {
        throw mapTransactionError(again, commit, this.limits, this.#clock.now());
      }
    }
  }

  async #write(commit: Commit, wholePage: boolean): Promise<void> {
    const items = commitItems(commit, {
      tableName: this.tableName,
      shards: this.#shards,
      clock: this.#clock,
      wholePage,
    });
    const single = items.length === 1 ? items[0]?.Put : undefined;
    if (single) {
      // All of it in the record: one conditional write, faster and half a transaction's cost.
      // An SDK retry of a write that went through fails its condition: the engine reloads and
      // finds its messages done.
      await this.#client.send(new PutItemCommand(single));
      return;
    }
    await this.#client.send(
      new TransactWriteItemsCommand({
        TransactItems: items,
        ClientRequestToken: clientRequestToken(commit, wholePage ? '' : 'per-outcome'),
      }),
    );
  }

  async readOutbox(actorId: string): Promise<OutboxItem[]> {
    const items = await this.#actorItems(actorId, OUTBOX_SK_PREFIX, 'Query (readOutbox)');
    return items.map(itemToOutbox);
  }

  async deleteOutbox(
    actorId: string,
    seqs: readonly number[],
    life: string | undefined,
  ): Promise<void> {
    const keys = [...new Set(seqs)].map((seq) => itemKey(actorPk(actorId), outboxSk(seq, life)));
    await batchDeleteItems(this.#client, this.tableName, 'BatchWriteItem (deleteOutbox)', keys);
  }

  async readIdempotency(
    key: string,
    sentAt = 0,
    options: OutcomeReadOptions = {},
  ): Promise<IdempotencyRecord | undefined> {
    // Its own item (from before pages, or a redrive's outcome) wins over its page. Without
    // `sentAt`, the pages are read back from the newest until one holds it, or to the oldest
    // (or to `maxPages`: a read past them throws, unless the item answers).
    const actorId = ingressTarget(key);
    const { maxPages } = options;
    const own = this.#get(idempotencyPk(key), IDEMPOTENCY_SK, 'GetItem (readIdempotency)').then(
      (item) => {
        const record = item && itemToIdempotency(item);
        // DynamoDB's TTL deletes an expired item only eventually: an expired one reads as absent.
        return record && record.expiresAt > this.#clock.now() ? record : undefined;
      },
    );
    // The pages' first request goes alongside the item's; the next ones only if it has none.
    const readOn = () =>
      own.then(
        (record) => record === undefined,
        () => true,
      );
    const pages =
      actorId === undefined
        ? undefined
        : readPages(this.#client, this.tableName, this.#clock, {
            ...{ actorId, sentAt, key, maxPages },
            readOn,
          });
    // The item's answer makes a failed read of them moot.
    pages?.catch(() => {});
    const record = await own;
    if (record) return record;
    const found = (await pages)?.[0];
    if (!found) return undefined;
    const { sentAt: _, ...outcome } = found;
    return outcome;
  }

  readPagedOutcomes(actorId: string, sentAt: number, fromPage = 0): Promise<PagedOutcome[]> {
    return readPages(this.#client, this.tableName, this.#clock, { actorId, sentAt, fromPage });
  }

  readEffectsDone(keys: readonly string[]): Promise<ReadonlySet<string>> {
    return readEffectsDone(this.table, keys);
  }

  markEffectsDone(keys: readonly string[], expiresAt: number): Promise<void> {
    return markEffectsDone(this.table, keys, expiresAt);
  }

  readDeadLetter(actorId: string, messageId: string): Promise<DeadLetter | undefined> {
    return readDeadLetter(this.table, actorId, messageId);
  }

  listDeadLetters(actorId: string): Promise<DeadLetter[]> {
    return listActorDeadLetters(this.table, actorId);
  }

  async readTimer(actorId: string, id: string): Promise<Timer | undefined> {
    const item = await this.#get(actorPk(actorId), timerSk(id), 'GetItem (readTimer)');
    return item && itemToTimer(item);
  }

  async listTimers(actorId: string): Promise<Timer[]> {
    const items = await this.#actorItems(actorId, TIMER_SK_PREFIX, 'Query (listTimers)');
    return items.map(itemToTimer).sort((a, b) => a.at - b.at);
  }

  async readOverflow(actorId: string, keys: readonly OverflowKey[]): Promise<OverflowMark[]> {
    const wanted = new Map<string, Item>();
    for (const { kind, peer } of keys) {
      const sk = overflowSk(kind, peer);
      wanted.set(sk, itemKey(actorPk(actorId), sk));
    }
    const all = [...wanted.values()];
    const found = await batchGetItems(
      this.#client,
      this.tableName,
      'BatchGetItem (readOverflow)',
      all,
    );
    const now = this.#clock.now();
    // DynamoDB's TTL deletes an expired item only eventually: an expired mark reads as absent.
    return found.map(itemToOverflow).filter((mark) => mark.expiresAt > now);
  }

  #get(pk: string, sk: string, operation: string): Promise<Item | undefined> {
    return getItem(this.#client, this.tableName, { pk, sk }, operation);
  }

  #actorItems(actorId: string, prefix: string, operation: string): Promise<Item[]> {
    return queryActorItems(this.#client, this.tableName, actorId, prefix, operation);
  }
}

function definedOnly<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}
