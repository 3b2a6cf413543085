/**
 * `@baton/aws/lambda`: the Lambda handlers of the turn pipeline — the worker (SQS FIFO inbox,
 * partial batch responses), the sweeper, the timer relay and the HTTP ingress. Their import graph
 * reaches DynamoDB and SQS only (and Powertools Metrics, for the worker's EMF lines).
 */
export { fromSqsRecord, type SqsEventRecord } from '../sqs/fromSqsRecord.ts';
export {
  ingressFromEnvironment,
  portsFromEnvironment,
  relayFromEnvironment,
  sweeperFromEnvironment,
  timerQueueFromEnvironment,
  workerFromEnvironment,
} from './fromEnvironment.ts';
export { authCaller, iamCaller } from './iamCaller.ts';
export { type IngressOptions, ingressHandler } from './ingressHandler.ts';
export type { LambdaInvocation } from './lambdaInvocation.ts';
export { type RelayOptions, relayHandler } from './relayHandler.ts';
export {
  SWEEP_BUDGET_MS,
  SWEEPER_LAG_ALARM_MS,
  type SweeperInvocation,
  sweeperHandler,
} from './sweeperHandler.ts';
export {
  type WorkerHandlerOptions,
  workerHandler,
} from './workerHandler.ts';
export { workerMetricsFromEnvironment } from './workerMetrics.ts';
