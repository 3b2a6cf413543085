/**
 * The AWS SDK clients and commands the worker's turns use, imported from the SDK in this one
 * module. A Lambda bundle leaves the SDK to the runtime (esbuild's `external`), and keeps an
 * import statement per importing module: imported here once, the worker's bundle holds one per
 * SDK package (bench row 7, within DESIGN's bundle budget). Types are imported where used.
 */
export {
  BatchGetItemCommand,
  BatchWriteItemCommand,
  DynamoDBClient,
  GetItemCommand,
  PutItemCommand,
  QueryCommand,
  TransactWriteItemsCommand,
} from '@aws-sdk/client-dynamodb';
export {
  ChangeMessageVisibilityBatchCommand,
  GetQueueAttributesCommand,
  SendMessageBatchCommand,
  SendMessageCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
