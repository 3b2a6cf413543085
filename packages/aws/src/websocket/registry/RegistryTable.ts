import {
  type AttributeValue,
  DeleteItemCommand,
  type DynamoDBClient,
  GetItemCommand,
  PutItemCommand,
  QueryCommand,
  ScanCommand,
  UpdateItemCommand,
} from '@aws-sdk/client-dynamodb';
import { marshall, unmarshall } from '@aws-sdk/util-dynamodb';
import { batchGetItems } from '../../dynamodb/batchItems.ts';
import { awsErrorName, unavailable } from '../../internal/unavailable.ts';
import { RegistryAttr as A } from '../connectionsTable.ts';

/** An item of the connections table, unmarshalled. */
export type Item = Record<string, unknown>;

/**
 * An update, condition or filter expression with its placeholders: `#name` → attribute name,
 * `:value` → a plain value (marshalled here).
 *
 * @example
 * const stillThere: Expression = { expression: 'attribute_exists(#pk)', names: { '#pk': 'pk' } };
 */
export interface Expression {
  readonly expression: string;
  readonly names: Readonly<Record<string, string>>;
  readonly values?: Readonly<Record<string, unknown>>;
}

/**
 * The one place that talks to the connections table: it builds and sends every DynamoDB
 * command of the registry. Reads are consistent (but the scan), queries are paged, conditional
 * writes answer false when their condition fails, and every other DynamoDB failure becomes an
 * UNAVAILABLE BatonError. The registry's parts give it keys, items and expressions.
 *
 * @example
 * const table = new RegistryTable(dynamodb, 'baton-connections');
 * await table.put({ pk: 'C#abc', sk: 'C' });
 */
export class RegistryTable {
  readonly #client: DynamoDBClient;
  readonly #name: string;

  constructor(client: DynamoDBClient, tableName: string) {
    this.#client = client;
    this.#name = tableName;
  }

  /** Writes `item` whole; attributes that are `undefined` are left out. */
  async put(item: Item): Promise<void> {
    await this.#call('PutItem', () =>
      this.#client.send(
        new PutItemCommand({
          TableName: this.#name,
          Item: marshall(item, { removeUndefinedValues: true }),
        }),
      ),
    );
  }

  async get(pk: string, sk: string): Promise<Item | undefined> {
    const output = await this.#call('GetItem', () =>
      this.#client.send(
        new GetItemCommand({ TableName: this.#name, Key: key(pk, sk), ConsistentRead: true }),
      ),
    );
    return output.Item ? unmarshall(output.Item) : undefined;
  }

  /**
   * The items at `keys` that exist, by `itemKey(pk, sk)`: consistent reads, 100 keys a call
   * (DynamoDB's most). Keys DynamoDB leaves unprocessed (past a partition's throughput) are
   * asked again after a growing pause.
   */
  async getMany(
    keys: readonly { readonly pk: string; readonly sk: string }[],
  ): Promise<Map<string, Item>> {
    const asked = keys.map(({ pk, sk }) => key(pk, sk));
    const found = new Map<string, Item>();
    for (const stored of await batchGetItems(this.#client, this.#name, 'BatchGetItem', asked)) {
      const item = unmarshall(stored);
      found.set(itemKey(item[A.pk] as string, item[A.sk] as string), item);
    }
    return found;
  }

  /**
   * Updates an item (creating it if missing, unless `condition` says otherwise); false if
   * `condition` failed.
   */
  async update(
    pk: string,
    sk: string,
    update: Expression,
    condition?: Expression,
  ): Promise<boolean> {
    return this.#conditional('UpdateItem', this.#updateItem(pk, sk, update, condition));
  }

  /**
   * Updates an item if `condition` holds, and returns the attributes the update wrote, as
   * stored afterwards (`UPDATED_NEW`); `undefined` if the condition failed. One write either way.
   */
  async updateIf(
    pk: string,
    sk: string,
    update: Expression,
    condition: Expression,
  ): Promise<Item | undefined> {
    try {
      const output = await this.#call('UpdateItem', () =>
        this.#client.send(this.#updateItem(pk, sk, update, condition, 'UPDATED_NEW')),
      );
      return unmarshall(output.Attributes ?? {});
    } catch (error) {
      if (isConditionFailure(error)) return undefined;
      throw error;
    }
  }

  /** Updates an item unconditionally and returns it as stored afterwards. */
  async updateReturning(pk: string, sk: string, update: Expression): Promise<Item> {
    const output = await this.#call('UpdateItem', () =>
      this.#client.send(this.#updateItem(pk, sk, update, undefined, 'ALL_NEW')),
    );
    return unmarshall(output.Attributes!);
  }

  /** The UpdateItem of `update` on item (`pk`, `sk`): on `condition` if one is given. */
  #updateItem(
    pk: string,
    sk: string,
    update: Expression,
    condition: Expression | undefined,
    returnValues?: 'UPDATED_NEW' | 'ALL_NEW',
  ): UpdateItemCommand {
    return new UpdateItemCommand({
      TableName: this.#name,
      Key: key(pk, sk),
      UpdateExpression: update.expression,
      ...(condition ? { ConditionExpression: condition.expression } : {}),
      ...placeholders(update, condition),
      ...(returnValues ? { ReturnValues: returnValues } : {}),
    });
  }

  /** Deletes an item; false if `condition` failed. A missing item without a condition is fine. */
  async delete(pk: string, sk: string, condition?: Expression): Promise<boolean> {
    return this.#conditional(
      'DeleteItem',
      new DeleteItemCommand({
        TableName: this.#name,
        Key: key(pk, sk),
        ...(condition
          ? { ConditionExpression: condition.expression, ...placeholders(condition) }
          : {}),
      }),
    );
  }

  /** Deletes an item, answering what it held (`undefined`: there was none). */
  async take(pk: string, sk: string): Promise<Item | undefined> {
    const output = await this.#call('DeleteItem', () =>
      this.#client.send(
        new DeleteItemCommand({ TableName: this.#name, Key: key(pk, sk), ReturnValues: 'ALL_OLD' }),
      ),
    );
    return output.Attributes ? unmarshall(output.Attributes) : undefined;
  }

  /** The items under `pk` (whose `sk` begins with `skPrefix`), at most `limit` of them. */
  async query(pk: string, skPrefix?: string, limit?: number): Promise<Item[]> {
    const items: Item[] = [];
    let start: Record<string, AttributeValue> | undefined;
    do {
      const page = await this.#call('Query', () =>
        this.#client.send(
          new QueryCommand({
            TableName: this.#name,
            KeyConditionExpression:
              skPrefix === undefined ? '#pk = :pk' : '#pk = :pk AND begins_with(#sk, :prefix)',
            ExpressionAttributeNames: {
              '#pk': A.pk,
              ...(skPrefix === undefined ? {} : { '#sk': A.sk }),
            },
            ExpressionAttributeValues: marshall({
              ':pk': pk,
              ...(skPrefix === undefined ? {} : { ':prefix': skPrefix }),
            }),
            ConsistentRead: true,
            ExclusiveStartKey: start,
            ...(limit === undefined ? {} : { Limit: limit }),
          }),
        ),
      );
      for (const item of page.Items ?? []) items.push(unmarshall(item));
      start = limit !== undefined && items.length >= limit ? undefined : page.LastEvaluatedKey;
    } while (start);
    return items;
  }

  /**
   * Every item matching `filter`, reading the whole table page by page (eventually consistent:
   * for periodic sweeps only). `projection` may name attributes through `filter.names`.
   */
  async scan(filter: Expression, projection?: string): Promise<Item[]> {
    const items: Item[] = [];
    let start: Record<string, AttributeValue> | undefined;
    do {
      const page = await this.#call('Scan', () =>
        this.#client.send(
          new ScanCommand({
            TableName: this.#name,
            FilterExpression: filter.expression,
            ...placeholders(filter),
            ...(projection === undefined ? {} : { ProjectionExpression: projection }),
            ExclusiveStartKey: start,
          }),
        ),
      );
      for (const item of page.Items ?? []) items.push(unmarshall(item));
      start = page.LastEvaluatedKey;
    } while (start);
    return items;
  }

  /** Sends a conditional write; false if its condition failed. */
  async #conditional(
    operation: string,
    command: UpdateItemCommand | DeleteItemCommand,
  ): Promise<boolean> {
    try {
      await this.#call(operation, () => this.#client.send(command as UpdateItemCommand));
      return true;
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
  }

  async #call<T>(operation: string, run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (error) {
      if (isConditionFailure(error)) throw error;
      throw unavailable('DynamoDB', operation, error);
    }
  }
}

/**
 * The key of an item in {@link RegistryTable.getMany}'s answer.
 *
 * @example
 * itemKey('C#abc=', 'C'); // 'C#abc=\u0000C'
 */
export function itemKey(pk: string, sk: string): string {
  return `${pk}\u0000${sk}`;
}

/**
 * Attribute JSON-encoded in an item (identity, deps), decoded; `undefined` if absent.
 *
 * @example
 * parseJson('{"user":"alice"}'); // { user: 'alice' }
 */
export function parseJson(value: unknown): unknown {
  return typeof value === 'string' ? JSON.parse(value) : undefined;
}

function key(pk: string, sk: string): Record<string, AttributeValue> {
  return marshall({ [A.pk]: pk, [A.sk]: sk });
}

/** The placeholders of one command's expressions, merged (DynamoDB refuses empty maps). */
function placeholders(...expressions: (Expression | undefined)[]) {
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {};
  for (const expression of expressions) {
    Object.assign(names, expression?.names);
    Object.assign(values, expression?.values);
  }
  return {
    ExpressionAttributeNames: names,
    ...(Object.keys(values).length > 0 ? { ExpressionAttributeValues: marshall(values) } : {}),
  };
}

function isConditionFailure(error: unknown): boolean {
  return awsErrorName(error) === 'ConditionalCheckFailedException';
}
