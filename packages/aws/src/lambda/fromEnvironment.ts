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
import { readEnvironment } from '../environment.ts';
import { SqsQueue } from '../sqs/SqsQueue.ts';
import { drainHandler } from './drainHandler.ts';
import { ingressHandler } from './ingressHandler.ts';
import { sweeperHandler } from './sweeperHandler.ts';
import { workerHandler } from './workerHandler.ts';

/** The store and the inbox the environment names, on the shared clients. */
export function portsFromEnvironment(): { store: DynamoStore; queue: SqsQueue } {
  const { table, inboxUrl } = readEnvironment(['table', 'inboxUrl']);
  const { dynamodb, sqs } = createAwsClients();
  return {
    store: new DynamoStore({ client: dynamodb, tableName: table }),
    queue: new SqsQueue({ client: sqs, queueUrl: inboxUrl }),
  };
}

export function workerFromEnvironment(app: BatonApp): ReturnType<typeof workerHandler> {
  return workerHandler({ actors: app.actors, ...portsFromEnvironment() });
}

export function drainFromEnvironment(app: BatonApp): ReturnType<typeof drainHandler> {
  return drainHandler({ actors: app.actors, ...portsFromEnvironment() });
}

export function sweeperFromEnvironment(app: BatonApp): ReturnType<typeof sweeperHandler> {
  return sweeperHandler({ actors: app.actors, ...portsFromEnvironment() });
}

export function ingressFromEnvironment(app: BatonApp): ReturnType<typeof ingressHandler> {
  return ingressHandler({ actors: app.actors, ...portsFromEnvironment() });
}
