/**
 * The live-query handlers for an app deployed by the CDK construct: the tables, the inbox, the
 * WebSocket API's endpoint and the SDK clients come from the environment ({@link BATON_ENV}),
 * the app (its actors, queries and auth hook) from its entry module.
 *
 * @example
 * import app from './app.ts';
 * export const handler = websocketFromEnvironment(app);
 */
import type { BatonApp } from '@baton/core';
import { createAwsClients } from '../createAwsClients.ts';
import { DynamoStore } from '../dynamodb/DynamoStore.ts';
import {
  connectionLimitsFromEnvironment,
  readEnvironment,
  storeOptionsFromEnvironment,
} from '../environment.ts';
import { SqsQueue } from '../sqs/SqsQueue.ts';
import { allowedOriginsFromEnvironment } from './allowedOriginsSetting.ts';
import { connectionSweeper } from './connectionSweeper.ts';
import { streamHandler } from './streamHandler.ts';
import type { ReactiveOptions } from './WebSocketOptions.ts';
import { websocketHandler } from './websocketHandler.ts';

const REACTIVE = ['table', 'connectionsTable', 'webSocketEndpoint'] as const;

function reactiveFromEnvironment(
  app: BatonApp,
  env: Record<(typeof REACTIVE)[number], string> = readEnvironment(REACTIVE),
): ReactiveOptions {
  const { dynamodb } = createAwsClients();
  return {
    actors: app.actors,
    queries: app.queries,
    store: new DynamoStore({
      client: dynamodb,
      tableName: env.table,
      ...storeOptionsFromEnvironment(),
    }),
    dynamodb,
    connectionsTable: env.connectionsTable,
    endpoint: env.webSocketEndpoint,
  };
}

export function websocketFromEnvironment(app: BatonApp): ReturnType<typeof websocketHandler> {
  // Read at once, so that one error names every variable missing.
  const env = readEnvironment([...REACTIVE, 'inboxUrl']);
  const queue = new SqsQueue({ client: createAwsClients().sqs, queueUrl: env.inboxUrl });
  const auth = app.auth;
  return websocketHandler({
    ...reactiveFromEnvironment(app, env),
    ...connectionLimitsFromEnvironment(),
    ...allowedOriginsFromEnvironment(),
    queue,
    ...(auth ? { auth: (request) => auth(request) } : {}),
  });
}

export function streamFromEnvironment(app: BatonApp): ReturnType<typeof streamHandler> {
  return streamHandler(reactiveFromEnvironment(app));
}

export function connectionSweeperFromEnvironment(
  app: BatonApp,
): ReturnType<typeof connectionSweeper> {
  return connectionSweeper(reactiveFromEnvironment(app));
}
