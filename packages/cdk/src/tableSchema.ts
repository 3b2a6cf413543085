import type { tableDefinition } from '@baton/aws';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';

type TableDefinition = ReturnType<typeof tableDefinition>;
type KeySchema = NonNullable<TableDefinition['KeySchema']>;

/**
 * The keys and indexes of one of `@baton/aws`'s table definitions, as CDK table props: the
 * construct's tables are the very layout the store and the registry read and write.
 */
export function tableSchema(definition: TableDefinition): {
  partitionKey: dynamodb.Attribute;
  sortKey?: dynamodb.Attribute;
  indexes: dynamodb.GlobalSecondaryIndexProps[];
} {
  const attribute = (schema: KeySchema, keyType: 'HASH' | 'RANGE') => {
    const name = schema.find((key) => key.KeyType === keyType)?.AttributeName;
    if (name === undefined) return undefined;
    const declared = definition.AttributeDefinitions?.find((a) => a.AttributeName === name);
    const type =
      declared?.AttributeType === 'N'
        ? dynamodb.AttributeType.NUMBER
        : dynamodb.AttributeType.STRING;
    return { name, type };
  };
  const keys = (schema: KeySchema) => {
    const sortKey = attribute(schema, 'RANGE');
    return { partitionKey: attribute(schema, 'HASH')!, ...(sortKey ? { sortKey } : {}) };
  };
  return {
    ...keys(definition.KeySchema!),
    indexes: (definition.GlobalSecondaryIndexes ?? []).map((index) => ({
      indexName: index.IndexName!,
      ...keys(index.KeySchema!),
      projectionType:
        index.Projection?.ProjectionType === 'KEYS_ONLY'
          ? dynamodb.ProjectionType.KEYS_ONLY
          : dynamodb.ProjectionType.ALL,
    })),
  };
}
