import {
  DescribeTableCommand,
  type DynamoDBClient,
  type TableDescription,
} from '@aws-sdk/client-dynamodb';
import { invalidArgument } from '@baton/core/adapter';
import { unavailable } from '../internal/unavailable.ts';

/** Stream view types that carry the new image, which {@link decodeStreamRecord} reads. */
const NEW_IMAGE_VIEWS = new Set(['NEW_IMAGE', 'NEW_AND_OLD_IMAGES']);

/**
 * The ARN of the table's current stream (`LatestStreamArn`). Throws INVALID_ARGUMENT when the
 * table has no enabled stream of new images, and UNAVAILABLE when DescribeTable fails.
 *
 * @example
 * const streamArn = await findStreamArn(dynamodb, 'baton');
 */
export async function findStreamArn(client: DynamoDBClient, tableName: string): Promise<string> {
  let table: TableDescription | undefined;
  try {
    ({ Table: table } = await client.send(new DescribeTableCommand({ TableName: tableName })));
  } catch (error) {
    throw unavailable('DynamoDB', 'DescribeTable', error);
  }
  const spec = table?.StreamSpecification;
  const arn = table?.LatestStreamArn;
  if (!arn || !spec?.StreamEnabled || !NEW_IMAGE_VIEWS.has(spec.StreamViewType ?? '')) {
    const found = spec?.StreamEnabled ? `a ${spec.StreamViewType} stream` : 'no stream';
    throw invalidArgument(
      `table "${tableName}" has ${found}; the change feed needs a stream of new images: create the table with tableDefinition() or createTable(), or enable a NEW_IMAGE stream on it`,
      { tableName },
    );
  }
  return arn;
}
