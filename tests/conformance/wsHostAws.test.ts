/**
 * The host conformance suite (wsHostSuite.ts) against the API Gateway WebSocket handler, wired
 * as deployed on DynamoDB Local and ElasticMQ behind the local gateway, with the worker and the
 * stream handler running.
 */
import { startWebSocketStack } from '../aws/fixtures/webSocketStack.ts';
import app, { frozenClock, LIMITS } from './wsHostApp.ts';
import { wsHostSuite } from './wsHostSuite.ts';

wsHostSuite('the API Gateway handler', async () => {
  const stack = await startWebSocketStack(frozenClock, { app, limits: LIMITS });
  return { url: stack.gateway.url, oversized: 'closed', stop: () => stack.stop() };
});
