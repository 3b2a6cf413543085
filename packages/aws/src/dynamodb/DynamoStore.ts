import {
  type AttributeValue,
  PutItemCommand,
  type QueryCommandInput,
} from '@aws-sdk/client-dynamodb';
import type { DeadLetter, KeyClaim, Store, Timer } from '@baton/core/adapter';
import { awsErrorName, unavailable } from '../internal/unavailable.ts';
import { batchGetItems } from './batchItems.ts';
import {
  type Bounded,
  byOldestEntry,
  listDeadLettersBounded,
  listOutboxActorsBounded,
  outboxQuery,
} from './boundedIndexReads.ts';
import { countDeadLetters } from './countDeadLetters.ts';
import { DynamoTurnStore } from './DynamoTurnStore.ts';
import { listDeadLetters } from './deadLetterItems.ts';
import { retireHeldOutbox } from './heldSends.ts';
import { claimToItem, type Item, itemToClaim, itemToTimer } from './itemCodec.ts';
import { getItem, queryItems, shardQuery } from './readItems.ts';
import { Attr, CLAIM_SK, claimPk, timerShardKey } from './tableLayout.ts';

/**
 * The {@link Store} on one DynamoDB table (layout: {@link tableDefinition}, the package
 * README): the turns' part ({@link DynamoTurnStore}: commits, as one conditional `PutItem` or
 * one `TransactWriteItems`, and the consistent reads the engine relies on), and the sweeper's,
 * the client's and the tools' (the outbox and timer indexes, key claims, the dead letters'
 * count). Outcomes are not pushed (`watchOutcomes` is absent): clients poll `readIdempotency`.
 * A key claim (`claimKey`) is one conditional `PutItem` of a `K#` item, apart from the outcomes.
 *
 * @example
 * const { dynamodb } = createAwsClients();
 * const store = new DynamoStore({ client: dynamodb, tableName: 'baton' });
 * const worker = new Worker({ actors: [Account], store, queue });
 */
export class DynamoStore extends DynamoTurnStore implements Store {
  retireHeldOutbox(
    actorId: string,
    ver: number,
    life: string | undefined,
    expiresAt: number | undefined,
  ): Promise<void> {
    return retireHeldOutbox(this.table, actorId, ver, life, expiresAt);
  }

  async listOutboxActors(olderThan: number): Promise<string[]> {
    const shards = Array.from({ length: this.table.shards }, (_, shard) =>
      this.#query('Query (listOutboxActors)', outboxQuery(this.tableName, shard, olderThan)),
    );
    // Each shard comes sorted by its index time; the actors of all, by their oldest entry's.
    return byOldestEntry((await Promise.all(shards)).flat());
  }

  /**
   * {@link listOutboxActors} for tools, reading at most `maxItems` of the index's entries;
   * `complete` is false when it stopped there.
   */
  listOutboxActorsBounded(olderThan: number, maxItems: number): Promise<Bounded<string[]>> {
    return listOutboxActorsBounded(this.table, olderThan, maxItems);
  }

  /** One actor's dead letters, or every actor's (through the index: for tools). */
  override listDeadLetters(actorId?: string): Promise<DeadLetter[]> {
    return listDeadLetters(this.table, actorId);
  }

  /**
   * Every actor's dead letters, as {@link listDeadLetters} lists them, from at most `maxItems`
   * of the index's keys, for tools; `complete` is false when it stopped there.
   */
  listDeadLettersBounded(maxItems: number): Promise<Bounded<DeadLetter[]>> {
    return listDeadLettersBounded(this.table, maxItems);
  }

  async readClaim(key: string): Promise<KeyClaim | undefined> {
    const item = await this.#get(claimPk(key), CLAIM_SK, 'GetItem (readClaim)');
    const claim = item && itemToClaim(item);
    // An expired claim may linger until TTL deletes it.
    return claim && claim.expiresAt > this.table.clock.now() ? claim : undefined;
  }

  async claimKey(claim: KeyClaim): Promise<KeyClaim | undefined> {
    try {
      await this.table.client.send(
        new PutItemCommand({
          TableName: this.tableName,
          Item: claimToItem(claim),
          // An expired claim may linger until TTL deletes it: it is taken over.
          ConditionExpression: 'attribute_not_exists(#pk) OR #expiresAt <= :now',
          ExpressionAttributeNames: { '#pk': Attr.pk, '#expiresAt': Attr.expiresAt },
          ExpressionAttributeValues: { ':now': { N: String(this.table.clock.now()) } },
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

  countDeadLetters(): Promise<number> {
    return countDeadLetters(this.table);
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
    const shards = Array.from({ length: this.table.shards }, (_, shard) =>
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
      this.table.client,
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

  #get(pk: string, sk: string, operation: string): Promise<Item | undefined> {
    return getItem(this.table.client, this.tableName, { pk, sk }, operation);
  }

  #query(operation: string, input: QueryCommandInput, max?: number): Promise<Item[]> {
    return queryItems(this.table.client, input, operation, max);
  }
}
