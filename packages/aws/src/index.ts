/**
 * `@baton/aws`: Baton's production backend — the DynamoDB store and the SQS FIFO queue, with
 * helpers to create their tables, queues and SDK clients, and the IAM actions each part needs.
 * The Lambda handlers are `@baton/aws/lambda`; the reactive layer on API Gateway WebSockets and
 * DynamoDB Streams is `@baton/aws/websocket`; local stand-ins for Lambda's event sources and the
 * WebSocket API are `@baton/aws/local`.
 */
export {
  type AwsClients,
  type AwsClientsOptions,
  clientSettings,
  createAwsClients,
} from './createAwsClients.ts';
export type { Bounded } from './dynamodb/boundedIndexReads.ts';
export { createTable } from './dynamodb/createTable.ts';
export { createTableWithTtl } from './dynamodb/createTableWithTtl.ts';
export { DynamoStore } from './dynamodb/DynamoStore.ts';
export { type DynamoStoreOptions, DynamoTurnStore } from './dynamodb/DynamoTurnStore.ts';
export { type ActorPage, listActors } from './dynamodb/listActors.ts';
export { type FailingActors, listFailingActors } from './dynamodb/listFailingActors.ts';
export { type HeldActors, listHeldActors } from './dynamodb/listHeldActors.ts';
export {
  listPausedActors,
  type PausedActors,
  type PausedWorkflow,
} from './dynamodb/listPausedActors.ts';
export { mapTransactionError } from './dynamodb/mapTransactionError.ts';
export {
  MESSAGE_TRAIL_RETENTION_MS,
  type MessageTrail,
  type MessageTrailsTable,
  readMessageTrails,
  trailEnded,
  trailRedriven,
} from './dynamodb/messageTrails.ts';
export {
  DYNAMO_STORE_LIMITS,
  MAX_OUTBOX_SHARDS,
  OUTBOX_INDEX,
  OUTBOX_INDEX_STEP_MS,
  TTL_ATTRIBUTE,
  tableDefinition,
} from './dynamodb/tableLayout.ts';
export {
  BATON_ENV,
  connectionLimitsFromEnvironment,
  DEFAULT_METRICS_NAMESPACE,
  readEnvironment,
  storeOptionsFromEnvironment,
  sweeperOptionsFromEnvironment,
} from './environment.ts';
export {
  ACTOR_RECORD_LEADING_KEYS,
  BATON_IAM,
  CLAIM_LEADING_KEYS,
  type IamResource,
  type IamStatement,
  OUTCOME_LEADING_KEYS,
  WORKFLOW_RECORD_LEADING_KEYS,
} from './iam.ts';
export { createFifoQueue, type FifoQueue, type FifoQueueOptions } from './sqs/createFifoQueue.ts';
export { createTimerQueue, type TimerQueueUrls } from './sqs/createTimerQueue.ts';
export { SqsQueue } from './sqs/SqsQueue.ts';
export {
  armDelaySeconds,
  MAX_DELAY_SECONDS,
  SqsTimerQueue,
  type SqsTimerQueueOptions,
} from './sqs/SqsTimerQueue.ts';
export {
  type SqsQueueOptions,
  SqsTurnQueue,
  type SqsTurnQueueOptions,
} from './sqs/SqsTurnQueue.ts';
export { sqsEffect } from './sqs/sqsEffect.ts';
export {
  allowedOriginsProblems,
  allowedOriginsVariable,
} from './websocket/allowedOriginsSetting.ts';
export {
  connectionsTableDefinition,
  createConnectionsTable,
} from './websocket/connectionsTable.ts';
export { PUSHES_THROTTLED_LOG } from './websocket/PushQueue.ts';
