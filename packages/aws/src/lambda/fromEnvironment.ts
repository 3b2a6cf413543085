/**
 * The turn pipeline's handlers for an app deployed by the CDK construct: the store, the inbox
 * and the SDK clients come from the environment ({@link BATON_ENV}), the app from its entry
 * module. One call per function, at cold start.
 *
 * @example
 * // what the construct bundles as the worker's entry
 * import app from './app.ts';
 * export const handler = workerFromEnvironment(app);
 */
import type { BatonApp } from '@baton/core';
import { createAwsClients } from '../createAwsClients.ts';
import { DynamoStore } from '../dynamodb/DynamoStore.ts';
import { type DynamoStoreOptions, DynamoTurnStore } from '../dynamodb/DynamoTurnStore.ts';
import {
  BATON_ENV,
  readEnvironment,
  storeOptionsFromEnvironment,
  sweeperOptionsFromEnvironment,
} from '../environment.ts';
import { SqsQueue } from '../sqs/SqsQueue.ts';
import { SqsTimerQueue } from '../sqs/SqsTimerQueue.ts';
import { SqsTurnQueue, type SqsTurnQueueOptions } from '../sqs/SqsTurnQueue.ts';
import { authCaller } from './iamCaller.ts';
import { ingressHandler } from './ingressHandler.ts';
import { relayHandler } from './relayHandler.ts';
import { sweeperHandler } from './sweeperHandler.ts';
import { workerHandler } from './workerHandler.ts';
import { workerMetricsFromEnvironment } from './workerMetrics.ts';

/** The store and the inbox the environment names, on the shared clients. */
export function portsFromEnvironment(): { store: DynamoStore; queue: SqsQueue } {
  return environmentPorts(DynamoStore, SqsQueue);
}

/**
 * The turns' part of the store and the inbox the environment names: all a worker uses, so its
 * bundle holds no code of the sweeper's, the client's or a poller's part.
 */
function turnPortsFromEnvironment(): { store: DynamoTurnStore; queue: SqsTurnQueue } {
  return environmentPorts(DynamoTurnStore, SqsTurnQueue);
}

/** A store of class `Store` and a queue of class `Queue` on the environment's table and inbox. */
function environmentPorts<S, Q>(
  Store: new (options: DynamoStoreOptions) => S,
  Queue: new (options: SqsTurnQueueOptions) => Q,
): { store: S; queue: Q } {
  const { table, inboxUrl } = readEnvironment(['table', 'inboxUrl']);
  const { dynamodb, sqs } = createAwsClients();
  return {
    store: new Store({ client: dynamodb, tableName: table, ...storeOptionsFromEnvironment() }),
    queue: new Queue({ client: sqs, queueUrl: inboxUrl }),
  };
}

/** The timer queue the environment names (`SqsTimerQueue`). */
export function timerQueueFromEnvironment(): SqsTimerQueue {
  const { timerQueueUrl } = readEnvironment(['timerQueueUrl']);
  return new SqsTimerQueue({ client: createAwsClients().sqs, queueUrl: timerQueueUrl });
}

/**
 * The worker; it arms the timers turns schedule when the environment names a timer queue, and
 * publishes each turn's metrics as CloudWatch EMF unless `BATON_METRICS=off`
 * (`workerMetricsFromEnvironment`).
 */
export function workerFromEnvironment(app: BatonApp): ReturnType<typeof workerHandler> {
  const timers = process.env[BATON_ENV.timerQueueUrl] ? timerQueueFromEnvironment() : undefined;
  const metrics = workerMetricsFromEnvironment();
  return workerHandler({
    ...(metrics && { metrics }),
    actors: app.actors,
    effects: app.effects,
    ...(app.effectKeyNamespace === undefined ? {} : { effectKeyNamespace: app.effectKeyNamespace }),
    ...turnPortsFromEnvironment(),
    ...(timers && { timers }),
  });
}

/** The timer relay: from the timer queue into the inbox; it re-arms only timers still stored. */
export function relayFromEnvironment(): ReturnType<typeof relayHandler> {
  const { queue, store } = portsFromEnvironment();
  return relayHandler({ queue, store, timers: timerQueueFromEnvironment() });
}

/**
 * The sweeper; with a timer queue it arms the timers that come within its reach, and leaves
 * armed timers to the relay for a minute past due.
 */
export function sweeperFromEnvironment(app: BatonApp): ReturnType<typeof sweeperHandler> {
  const timers = process.env[BATON_ENV.timerQueueUrl] ? timerQueueFromEnvironment() : undefined;
  return sweeperHandler(
    { actors: app.actors, ...portsFromEnvironment(), ...(timers && { timers }) },
    { ...sweeperOptionsFromEnvironment(), ...(timers && { timerGraceMs: 60_000 }) },
  );
}

/**
 * The HTTP ingress; with the app's `auth`, a request's bearer token signs it in as on the
 * WebSocket (a SigV4 principal stays an IAM caller).
 */
export function ingressFromEnvironment(app: BatonApp): ReturnType<typeof ingressHandler> {
  return ingressHandler({
    actors: app.actors,
    ...portsFromEnvironment(),
    ...(app.auth && { caller: authCaller(app.auth) }),
  });
}
