/**
 * The cdk-nag findings a Baton app's design accepts, each acknowledged in code with its reason.
 */
import { type CfnElement, Stack, Token, Validations } from 'aws-cdk-lib';
import type * as apigwv2 from 'aws-cdk-lib/aws-apigatewayv2';
import type { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import type { BatonFunctionName } from './appFunctions.ts';

/** The app's resources with accepted findings. */
export interface NagSubjects extends Construct {
  readonly webSocketApi: apigwv2.WebSocketApi;
  readonly webSocketStage: apigwv2.WebSocketStage;
  readonly streamFailureQueue: sqs.Queue;
  readonly functions: Readonly<Record<BatonFunctionName, NodejsFunction>>;
}

/**
 * The cdk-nag findings this design accepts, each with its reason. The WebSocket routes' missing
 * authorizer is accepted only when the app's own `auth` runs on `$connect`: an anonymous app's
 * finding stays for its owner to see.
 */
export function acknowledgeNagFindings(app: NagSubjects, appAuth: boolean): void {
  if (appAuth) {
    Validations.of(app.webSocketApi).acknowledge({
      id: 'AwsSolutions-APIG4',
      reason:
        'API Gateway takes an authorizer on $connect only; the WebSocket function authorizes ' +
        "each $connect with the app's auth hook (webSocketAuth: 'app', checked when the " +
        'function starts) and refuses it with 401, and $default and $disconnect act only ' +
        'for a connection that was accepted.',
    });
  }
  Validations.of(app.streamFailureQueue).acknowledge({
    id: 'AwsSolutions-SQS3',
    reason:
      'It is a dead-letter queue: the on-failure destination of the stream function’s event ' +
      'source mapping, which cdk-nag does not recognise as one.',
  });
  const stack = Stack.of(app);
  const api = stack.getLogicalId(app.webSocketApi.node.defaultChild as CfnElement);
  const region = Token.isUnresolved(stack.region) ? '<AWS::Region>' : stack.region;
  const account = Token.isUnresolved(stack.account) ? '<AWS::AccountId>' : stack.account;
  const connections = `arn:<AWS::Partition>:execute-api:${region}:${account}:<${api}>/${app.webSocketStage.stageName}/*/@connections/*`;
  for (const name of ['websocket', 'stream', 'connectionSweeper'] as const) {
    Validations.of(app.functions[name].role!).acknowledge({
      id: `AwsSolutions-IAM5[Resource::${connections}]`,
      reason:
        'Pushing to, reading and closing connections of this API and stage: connection ids ' +
        'are made per connection, and the method (POST, GET, DELETE) is the call’s.',
    });
  }
  Validations.of(app.functions.stream.role!).acknowledge({
    id: 'AwsSolutions-IAM5[Resource::*]',
    reason:
      'dynamodb:ListStreams, which the stream event source mapping calls, takes no resource; ' +
      'every other stream action is on this table’s stream.',
  });
}
