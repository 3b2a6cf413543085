import {
  type AttributeValue,
  type DynamoDBClient,
  PutItemCommand,
  type QueryCommandInput,
  TransactWriteItemsCommand,
} from '@aws-sdk/client-dynamodb';
import type {
  ActorRecord,
  Clock,
  Commit,
  DeadLetter,
  IdempotencyRecord,
  KeyClaim,
  OutboxItem,
  OverflowKey,
  OverflowMark,
  PagedOutcome,
  Store,
  StoreLimits,
  Timer,
} from '@baton/core/adapter';
import {
  checkCommitAsMeasured,
  ingressTarget,
  invalidArgument,
  systemClock,
} from '@baton/core/adapter';
import { awsErrorName, unavailable } from '../internal/unavailable.ts';
import { batchDeleteItems, batchGetItems } from './batchItems.ts';
import { clientRequestToken } from './clientRequestToken.ts';
import { commitItems } from './commitItems.ts';
import { countDeadLetters, listDeadLetters, readDeadLetter } from './deadLetterItems.ts';
import { markEffectsDone, readEffectsDone } from './effectMarks.ts';
import { retireHeldOutbox } from './heldSends.ts';
import {
  claimToItem,
  type Item,
  itemToClaim,
  itemToIdempotency,
  itemToOutbox,
  itemToOverflow,
  itemToRecord,
  itemToTimer,
} from './itemCodec.ts';
import { mapTransactionError, pageExistedOnly } from './mapTransactionError.ts';
import { readPages } from './outcomePages.ts';
import { getItem, queryActorItems, queryItems, shardQuery } from './readItems.ts';
import {
  Attr,
  actorIdOf,
  actorPk,
  CLAIM_SK,
  claimPk,
  DYNAMO_STORE_LIMITS,
  IDEMPOTENCY_SK,
  idempotencyPk,
  MAX_OUTBOX_SHARDS,
  OUTBOX_SK_PREFIX,
  outboxShardKey,
  outboxSk,
  overflowSk,
  RECORD_SK,
  TIMER_SK_PREFIX,
  timerShardKey,
  timerSk,
} from './tableLayout.ts';

/** Options of a {@link DynamoStore}. */
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

/**
 * The {@link Store} on one DynamoDB table (layout: {@link tableDefinition}, the package
 * README). A commit whose sends fit in the actor record (`ActorRecord.outbox`) and that writes
 * nothing else is one conditional `PutItem` of the record. Any other commit is one
 * `TransactWriteItems`: the actor record on a version condition, the outbox items, and the
 * idempotency records on "absent or expired" — all or nothing, with a `ClientRequestToken` so
 * the SDK's retries cannot apply it twice. Failures come back as the
 * core's errors ({@link mapTransactionError}). Reads the engine relies on are consistent.
 * Outcomes are not pushed (`watchOutcomes` is absent): clients poll `readIdempotency`. A key
 * claim (`claimKey`) is one conditional `PutItem` of a `K#` item, apart from the outcomes.
 *
 * @example
 * const { dynamodb } = createAwsClients();
 * const store = new DynamoStore({ client: dynamodb, tableName: 'baton' });
 * const worker = new Worker({ actors: [Account], store, queue });
 */
export class DynamoStore implements Store {
  readonly limits: StoreLimits;
  readonly tableName: string;
  readonly #client: DynamoDBClient;
  readonly #clock: Clock;
  readonly #shards: number;
  /** The client and table, as the item functions take them (dead letters, marks, held sends). */
  readonly #table: { client: DynamoDBClient; tableName: string; shards: number; clock: Clock };

  constructor(options: DynamoStoreOptions) {
    const shards = options.outboxShards ?? 8;
    const problems: string[] = [];
    if (!options.client) problems.push('client is required');
    if (typeof options.tableName !== 'string' || options.tableName === '') {
      problems.push('tableName must be a non-empty string');
    }
    if (!Number.isInteger(shards) || shards < 1 || shards > MAX_OUTBOX_SHARDS) {
      problems.push(
        `outboxShards must be an integer from 1 to ${MAX_OUTBOX_SHARDS}, got ${shards}`,
      );
    }
    const limits = { ...DYNAMO_STORE_LIMITS, ...definedOnly(options.limits ?? {}) };
    for (const [name, value] of Object.entries(limits)) {
      if (!Number.isInteger(value) || value < 1) {
        problems.push(`limits.${name} must be an integer ≥ 1, got ${value}`);
      }
    }
    if (problems.length > 0) {
      throw invalidArgument(`invalid DynamoStore options: ${problems.join('; ')}`);
    }
    this.#client = options.client;
    this.tableName = options.tableName;
    this.#clock = options.clock ?? systemClock;
    this.#shards = shards;
    this.#table = { client: this.#client, tableName: this.tableName, shards, clock: this.#clock };
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

  retireHeldOutbox(
    actorId: string,
    ver: number,
    life: string | undefined,
    expiresAt: number | undefined,
  ): Promise<void> {
    return retireHeldOutbox(this.#table, actorId, ver, life, expiresAt);
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
    const keys = [...new Set(seqs)].map(
      (seq): Item => ({
        [Attr.pk]: { S: actorPk(actorId) },
        [Attr.sk]: { S: outboxSk(seq, life) },
      }),
    );
    await batchDeleteItems(this.#client, this.tableName, 'BatchWriteItem (deleteOutbox)', keys);
  }

  async listOutboxActors(olderThan: number): Promise<string[]> {
    const shards = Array.from({ length: this.#shards }, (_, shard) =>
      this.#query(
        'Query (listOutboxActors)',
        shardQuery(this.tableName, outboxShardKey(shard), {
          at: '#at < :before',
          names: { '#pk': Attr.pk },
          values: { ':before': { N: String(olderThan) } },
          input: { ProjectionExpression: '#pk, #at' },
        }),
      ),
    );
    // Each shard comes sorted by its index time; the actors of all, by their oldest entry's.
    const oldest = new Map<string, number>();
    for (const items of await Promise.all(shards)) {
      for (const item of items) {
        const pk = item[Attr.pk]?.S;
        if (!pk) continue;
        const actorId = actorIdOf(pk);
        // The index's sort key: every entry has one.
        const at = Number(item[Attr.obAt]?.N);
        if (at < (oldest.get(actorId) ?? Number.POSITIVE_INFINITY)) oldest.set(actorId, at);
      }
    }
    return [...oldest].sort((a, b) => a[1] - b[1]).map(([actorId]) => actorId);
  }

  async readIdempotency(key: string, sentAt = 0): Promise<IdempotencyRecord | undefined> {
    // Its own item (from before pages, or a redrive's outcome) wins over its page. Without
    // `sentAt`, the pages are read back from the newest until one holds it, or to the oldest.
    const actorId = ingressTarget(key);
    const [item, paged] = await Promise.all([
      this.#get(idempotencyPk(key), IDEMPOTENCY_SK, 'GetItem (readIdempotency)'),
      actorId === undefined
        ? []
        : readPages(this.#client, this.tableName, this.#clock, { actorId, sentAt, key }),
    ]);
    const record = item && itemToIdempotency(item);
    // DynamoDB's TTL deletes an expired item only eventually: an expired record reads as absent.
    if (record && record.expiresAt > this.#clock.now()) return record;
    const found = paged[0];
    if (!found) return undefined;
    const { sentAt: _, ...outcome } = found;
    return outcome;
  }

  readPagedOutcomes(actorId: string, sentAt: number, fromPage = 0): Promise<PagedOutcome[]> {
    return readPages(this.#client, this.tableName, this.#clock, { actorId, sentAt, fromPage });
  }

  async readClaim(key: string): Promise<KeyClaim | undefined> {
    const item = await this.#get(claimPk(key), CLAIM_SK, 'GetItem (readClaim)');
    const claim = item && itemToClaim(item);
    // An expired claim may linger until TTL deletes it.
    return claim && claim.expiresAt > this.#clock.now() ? claim : undefined;
  }

  async claimKey(claim: KeyClaim): Promise<KeyClaim | undefined> {
    try {
      await this.#client.send(
        new PutItemCommand({
          TableName: this.tableName,
          Item: claimToItem(claim),
          // An expired claim may linger until TTL deletes it: it is taken over.
          ConditionExpression: 'attribute_not_exists(#pk) OR #expiresAt <= :now',
          ExpressionAttributeNames: { '#pk': Attr.pk, '#expiresAt': Attr.expiresAt },
          ExpressionAttributeValues: { ':now': { N: String(this.#clock.now()) } },
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      );
      return undefined;
    } catch (error) {
      const held = (error as { Item?: Item }).Item;
      if (awsErrorName(error) === 'ConditionalCheckFailedException' && held) {
        return itemToClaim(held);
      }
      throw unavailable('DynamoDB', 'PutItem (claimKey)', error);
    }
  }

  readEffectsDone(keys: readonly string[]): Promise<ReadonlySet<string>> {
    return readEffectsDone(this.#table, keys);
  }

  markEffectsDone(keys: readonly string[], expiresAt: number): Promise<void> {
    return markEffectsDone(this.#table, keys, expiresAt);
  }

  readDeadLetter(actorId: string, messageId: string): Promise<DeadLetter | undefined> {
    return readDeadLetter(this.#table, actorId, messageId);
  }

  listDeadLetters(actorId?: string): Promise<DeadLetter[]> {
    return listDeadLetters(this.#table, actorId);
  }

  countDeadLetters(): Promise<number> {
    return countDeadLetters(this.#table);
  }

  async readTimer(actorId: string, id: string): Promise<Timer | undefined> {
    const item = await this.#get(actorPk(actorId), timerSk(id), 'GetItem (readTimer)');
    return item && itemToTimer(item);
  }

  async listTimers(actorId: string): Promise<Timer[]> {
    const items = await this.#actorItems(actorId, TIMER_SK_PREFIX, 'Query (listTimers)');
    return items.map(itemToTimer).sort((a, b) => a.at - b.at);
  }

  async listDueTimers(before: number, limit: number, after?: number): Promise<Timer[]> {
    // An empty window, which DynamoDB's BETWEEN refuses.
    if (after !== undefined && Math.floor(after) >= before) return [];
    // The sparse index holds keys only, sorted by due time per shard: the soonest `limit` of
    // each shard, then the soonest `limit` of those, read whole in one batch.
    const range: { condition: string; values: Record<string, AttributeValue> } =
      after === undefined
        ? { condition: '#at <= :before', values: {} }
        : {
            // Due times are whole ms: after `after` is at or after the next one.
            condition: '#at BETWEEN :after AND :before',
            values: { ':after': { N: String(Math.floor(after) + 1) } },
          };
    const shards = Array.from({ length: this.#shards }, (_, shard) =>
      this.#query(
        'Query (listDueTimers)',
        shardQuery(this.tableName, timerShardKey(shard), {
          at: range.condition,
          values: { ':before': { N: String(before) }, ...range.values },
          input: { Limit: limit },
        }),
        limit,
      ),
    );
    const keys = (await Promise.all(shards))
      .flat()
      .sort((a, b) => Number(a[Attr.obAt]?.N) - Number(b[Attr.obAt]?.N))
      .slice(0, limit)
      .map((key): Item => ({ [Attr.pk]: key[Attr.pk]!, [Attr.sk]: key[Attr.sk]! }));
    const found = await batchGetItems(
      this.#client,
      this.tableName,
      'BatchGetItem (listDueTimers)',
      keys,
    );
    // The index is eventually consistent: a timer removed since reads as absent here, and one
    // whose fire was dead-lettered since reads as such.
    return found
      .map(itemToTimer)
      .filter((timer) => !timer.deadLettered)
      .sort((a, b) => a.at - b.at);
  }

  async readOverflow(actorId: string, keys: readonly OverflowKey[]): Promise<OverflowMark[]> {
    const wanted = new Map<string, Item>();
    for (const { kind, peer } of keys) {
      const sk = overflowSk(kind, peer);
      wanted.set(sk, { [Attr.pk]: { S: actorPk(actorId) }, [Attr.sk]: { S: sk } });
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

  #query(operation: string, input: QueryCommandInput, max?: number): Promise<Item[]> {
    return queryItems(this.#client, input, operation, max);
  }

  #actorItems(actorId: string, prefix: string, operation: string): Promise<Item[]> {
    return queryActorItems(this.#client, this.tableName, actorId, prefix, operation);
  }
}

function definedOnly<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}
