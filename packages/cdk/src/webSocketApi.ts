/**
 * The live queries' WebSocket API: its stage (throttled, with access logs) and its routes, each
 * served by the WebSocket function.
 */
import { AccessLogFormat } from 'aws-cdk-lib/aws-apigateway';
import * as apigwv2 from 'aws-cdk-lib/aws-apigatewayv2';
import { WebSocketLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import type { BatonAppSettings } from './validateProps.ts';

export interface WebSocketEndpoint {
  readonly api: apigwv2.WebSocketApi;
  readonly stage: apigwv2.WebSocketStage;
}

/** The API of the app with construct id `id`, and its stage. */
export function createWebSocketApi(
  scope: Construct,
  id: string,
  settings: BatonAppSettings,
): WebSocketEndpoint {
  const api = new apigwv2.WebSocketApi(scope, 'WebSocketApi', {
    description: `Baton live queries (${id})`,
  });
  const accessLogs = new logs.LogGroup(scope, 'WebSocketAccessLogs', {
    retention: settings.logRetention,
  });
  const stage = new apigwv2.WebSocketStage(scope, 'WebSocketStage', {
    webSocketApi: api,
    stageName: settings.stageName,
    autoDeploy: true,
    throttle: settings.throttle,
    accessLogSettings: {
      destination: new apigwv2.LogGroupLogDestination(accessLogs),
      format: AccessLogFormat.custom(
        JSON.stringify({
          requestId: '$context.requestId',
          connectionId: '$context.connectionId',
          routeKey: '$context.routeKey',
          status: '$context.status',
          integrationError: '$context.integrationErrorMessage',
        }),
      ),
    },
  });
  return { api, stage };
}

/** Routes `$connect`, `$disconnect` and `$default` to `fn`. */
export function addWebSocketRoutes(api: apigwv2.WebSocketApi, fn: lambda.IFunction): void {
  const integration = new WebSocketLambdaIntegration('Routes', fn);
  for (const route of ['$connect', '$disconnect', '$default']) {
    api.addRoute(route, { integration });
  }
}
