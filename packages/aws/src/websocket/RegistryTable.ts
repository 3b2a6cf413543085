import {
  type AttributeValue,
  DeleteItemCommand,
  type DynamoDBClient,
  GetItemCommand,
  PutItemCommand,
  QueryCommand,
  type UpdateItemCommand,
} from '@aws-sdk/client-dynamodb';
import { marshall, unmarshall } from '@aws-sdk/util-dynamodb';
import { awsErrorName, unavailable } from '../internal/unavailable.ts';
import { RegistryAttr as A } from './connectionsTable.ts';

/**
 * Item access on the connections table, below the registry's meaning: consistent reads,
 * paged queries, conditional writes that answer false when their condition fails, and every
 * other DynamoDB failure as an UNAVAILABLE BatonError.
 *
 * @example
 * const items = new RegistryTable(dynamodb, 'baton-connections');
 * await items.put({ pk: 'C#abc', sk: 'C' });
 */
export class RegistryTable {
  constructor(
    readonly client: DynamoDBClient,
    readonly name: string,
  ) {}

  async put(item: Record<string, unknown>): Promise<void> {
    await this.call('PutItem', () =>
      this.client.send(
        new PutItemCommand({
          TableName: this.name,
          Item: marshall(item, { removeUndefinedValues: true }),
        }),
      ),
    );
  }

  async get(pk: string, sk: string): Promise<Record<string, unknown> | undefined> {
    const output = await this.call('GetItem', () =>
      this.client.send(
        new GetItemCommand({
          TableName: this.name,
          Key: marshall({ [A.pk]: pk, [A.sk]: sk }),
          ConsistentRead: true,
        }),
      ),
    );
    return output.Item ? unmarshall(output.Item) : undefined;
  }

  /** Deletes an item; with `gen`, only if its `gen` is that one. Missing items are fine. */
  async delete(pk: string, sk: string, gen?: string): Promise<void> {
    await this.write(
      'DeleteItem',
      new DeleteItemCommand({
        TableName: this.name,
        Key: marshall({ [A.pk]: pk, [A.sk]: sk }),
        ...(gen === undefined
          ? {}
          : {
              ConditionExpression: 'attribute_not_exists(#gen) OR #gen = :gen',
              ExpressionAttributeNames: { '#gen': A.gen },
              ExpressionAttributeValues: marshall({ ':gen': gen }),
            }),
      }),
    );
  }

  /** Sends a conditional write; false if its condition failed. */
  async write(operation: string, command: UpdateItemCommand | DeleteItemCommand): Promise<boolean> {
    try {
      await this.call(operation, () => this.client.send(command as UpdateItemCommand));
      return true;
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
  }

  async query(pk: string, skPrefix?: string, limit?: number): Promise<Record<string, unknown>[]> {
    const items: Record<string, unknown>[] = [];
    let start: Record<string, AttributeValue> | undefined;
    do {
      const page = await this.call('Query', () =>
        this.client.send(
          new QueryCommand({
            TableName: this.name,
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

  async call<T>(operation: string, run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (error) {
      if (isConditionFailure(error)) throw error;
      throw unavailable('DynamoDB', operation, error);
    }
  }
}

function isConditionFailure(error: unknown): boolean {
  return awsErrorName(error) === 'ConditionalCheckFailedException';
}
