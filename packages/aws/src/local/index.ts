/**
 * `@baton/aws/local`: stand-ins for what AWS runs around the handlers, for tests and local
 * development on DynamoDB Local + ElasticMQ — Lambda's SQS and DynamoDB Streams event sources,
 * and API Gateway's WebSocket API. The only part of the package that needs `ws`.
 */
export { LocalSqsEventSource, type LocalSqsEventSourceOptions } from './LocalSqsEventSource.ts';
export {
  LocalStreamEventSource,
  type LocalStreamEventSourceOptions,
} from './LocalStreamEventSource.ts';
export {
  LocalWebSocketGateway,
  type LocalWebSocketGatewayOptions,
} from './LocalWebSocketGateway.ts';
