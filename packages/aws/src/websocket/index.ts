/**
 * `@baton/aws/websocket`: live queries on AWS — the API Gateway WebSocket routes (`$connect`,
 * `$disconnect`, `$default`), the DynamoDB Streams handler that re-runs the queries a commit
 * touched and pushes their results, the connection sweeper, the connections table, and a
 * change feed over the table's stream.
 */
export {
  createStreamClients,
  type StreamClients,
} from '../streams/createStreamClients.ts';
export { DynamoStreamFeed, type DynamoStreamFeedOptions } from '../streams/DynamoStreamFeed.ts';
export { decodeStreamRecord, type StoreChange } from '../streams/decodeStreamRecord.ts';
export { allowedOriginsFromEnvironment } from './allowedOriginsSetting.ts';
export { connectionSweeper } from './connectionSweeper.ts';
export {
  connectionSweeperFromEnvironment,
  streamFromEnvironment,
  websocketFromEnvironment,
} from './fromEnvironment.ts';
export type { ManagementClientFactory } from './Pusher.ts';
export { PUSHES_THROTTLED_LOG, type PushOptions } from './PushQueue.ts';
export { streamHandler } from './streamHandler.ts';
export type {
  ConnectAuthRequest,
  ReactiveOptions,
  WebSocketHandlerOptions,
} from './WebSocketOptions.ts';
export {
  type WebSocketEvent,
  type WebSocketResponse,
  websocketHandler,
} from './websocketHandler.ts';
