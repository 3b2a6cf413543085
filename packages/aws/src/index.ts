/**
 * @baton/aws — Baton's production backend: the DynamoDB store and the SQS FIFO queue, with
 * helpers to create the table, the queues and the SDK clients.
 */
export { type AwsClients, type AwsClientsOptions, createAwsClients } from './createAwsClients.ts';
export { createTable } from './dynamodb/createTable.ts';
export { DynamoStore, type DynamoStoreOptions } from './dynamodb/DynamoStore.ts';
export { mapTransactionError } from './dynamodb/mapTransactionError.ts';
export { DYNAMO_STORE_LIMITS, OUTBOX_INDEX, tableDefinition } from './dynamodb/tableLayout.ts';
export { drainHandler } from './lambda/drainHandler.ts';
export { type IngressOptions, ingressHandler } from './lambda/ingressHandler.ts';
export { sweeperHandler } from './lambda/sweeperHandler.ts';
export { workerHandler } from './lambda/workerHandler.ts';
export {
  LocalSqsEventSource,
  type LocalSqsEventSourceOptions,
} from './local/LocalSqsEventSource.ts';
export { createFifoQueue, type FifoQueue, type FifoQueueOptions } from './sqs/createFifoQueue.ts';
export { fromSqsRecord, type SqsEventRecord } from './sqs/fromSqsRecord.ts';
export { SqsQueue, type SqsQueueOptions } from './sqs/SqsQueue.ts';
