import { AccessLogFormat } from 'aws-cdk-lib/aws-apigateway';
import * as apigwv2 from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import type { IngressAuth, StageThrottle } from './BatonAppProps.ts';

/** Where the HTTP ingress is served, by its `ingressAuth`. */
export interface IngressEndpoint {
  /** The URL callers use: the function URL, or the HTTP API's default stage. */
  readonly url: string;
  /** With `'iam'` or `'none'`: the function URL. */
  readonly functionUrl?: lambda.FunctionUrl;
  /** With `{ authorizer }`: the HTTP API in front of the function. */
  readonly httpApi?: apigwv2.HttpApi;
}

/** The ingress's routes, each the handler's own. */
const ROUTES = [
  [apigwv2.HttpMethod.POST, '/send'],
  [apigwv2.HttpMethod.POST, '/ask'],
  [apigwv2.HttpMethod.GET, '/outcome'],
  [apigwv2.HttpMethod.GET, '/outcome/{id}'],
  [apigwv2.HttpMethod.POST, '/workflows/{name}/start'],
  [apigwv2.HttpMethod.GET, '/workflows/{name}/{id}'],
] as const;

/**
 * Serves the ingress function: on a function URL with IAM (or no) auth, or behind an HTTP API
 * whose every route runs the authorizer, throttled, with access logs.
 */
export function ingressEndpoint(
  scope: Construct,
  fn: lambda.IFunction,
  auth: IngressAuth,
  throttle: StageThrottle,
  logRetention: logs.RetentionDays,
): IngressEndpoint {
  if (auth === 'iam' || auth === 'none') {
    const functionUrl = fn.addFunctionUrl({
      authType:
        auth === 'iam' ? lambda.FunctionUrlAuthType.AWS_IAM : lambda.FunctionUrlAuthType.NONE,
    });
    return { url: functionUrl.url, functionUrl };
  }
  const httpApi = new apigwv2.HttpApi(scope, 'IngressApi', {
    description: `Baton HTTP ingress (${scope.node.path})`,
    createDefaultStage: false,
  });
  const integration = new HttpLambdaIntegration('Ingress', fn);
  for (const [method, path] of ROUTES) {
    httpApi.addRoutes({ path, methods: [method], integration, authorizer: auth.authorizer });
  }
  const accessLogs = new logs.LogGroup(scope, 'IngressAccessLogs', { retention: logRetention });
  const stage = new apigwv2.HttpStage(scope, 'IngressStage', {
    httpApi,
    stageName: '$default',
    autoDeploy: true,
    throttle,
    accessLogSettings: {
      destination: new apigwv2.LogGroupLogDestination(accessLogs),
      format: AccessLogFormat.custom(
        JSON.stringify({
          requestId: '$context.requestId',
          routeKey: '$context.routeKey',
          status: '$context.status',
          authorizerError: '$context.authorizer.error',
          integrationError: '$context.integrationErrorMessage',
        }),
      ),
    },
  });
  return { url: stage.url, httpApi };
}
