/**
 * @baton/aws — Baton's production backend: the DynamoDB store, the SQS FIFO queue, the
 * DynamoDB Streams change feed and the Lambda handlers (worker, drain, sweeper, HTTP ingress,
 * WebSocket routes, stream), with helpers to create the tables, the queues and the SDK clients,
 * and local stand-ins for Lambda's event sources and API Gateway's WebSocket API.
 */
export { type AwsClients, type AwsClientsOptions, createAwsClients } from './createAwsClients.ts';
export { createTable } from './dynamodb/createTable.ts';
export { createTableWithTtl } from './dynamodb/createTableWithTtl.ts';
export { DynamoStore, type DynamoStoreOptions } from './dynamodb/DynamoStore.ts';
export { mapTransactionError } from './dynamodb/mapTransactionError.ts';
export { DYNAMO_STORE_LIMITS, OUTBOX_INDEX, tableDefinition } from './dynamodb/tableLayout.ts';
export { BATON_IAM, type IamResource, type IamStatement } from './iam.ts';
export { drainHandler } from './lambda/drainHandler.ts';
export { type IngressOptions, ingressHandler } from './lambda/ingressHandler.ts';
export { sweeperHandler } from './lambda/sweeperHandler.ts';
export { workerHandler } from './lambda/workerHandler.ts';
export {
  LocalSqsEventSource,
  type LocalSqsEventSourceOptions,
} from './local/LocalSqsEventSource.ts';
export {
  LocalStreamEventSource,
  type LocalStreamEventSourceOptions,
} from './local/LocalStreamEventSource.ts';
export {
  LocalWebSocketGateway,
  type LocalWebSocketGatewayOptions,
} from './local/LocalWebSocketGateway.ts';
export { createFifoQueue, type FifoQueue, type FifoQueueOptions } from './sqs/createFifoQueue.ts';
export { fromSqsRecord, type SqsEventRecord } from './sqs/fromSqsRecord.ts';
export { SqsQueue, type SqsQueueOptions } from './sqs/SqsQueue.ts';
export { DynamoStreamFeed, type DynamoStreamFeedOptions } from './streams/DynamoStreamFeed.ts';
export { decodeStreamRecord, type StoreChange } from './streams/decodeStreamRecord.ts';
export { connectionSweeper } from './websocket/connectionSweeper.ts';
export {
  connectionsTableDefinition,
  createConnectionsTable,
} from './websocket/connectionsTable.ts';
export type { ManagementClientFactory } from './websocket/Pusher.ts';
export { streamHandler } from './websocket/streamHandler.ts';
export type {
  ConnectAuthRequest,
  ReactiveOptions,
  WebSocketHandlerOptions,
} from './websocket/WebSocketOptions.ts';
export {
  type WebSocketEvent,
  type WebSocketResponse,
  websocketHandler,
} from './websocket/websocketHandler.ts';
