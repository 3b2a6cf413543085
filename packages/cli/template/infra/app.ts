/**
 * The CDK app: the Baton app's tables, queues, functions and WebSocket API, checked with
 * cdk-nag's AwsSolutions pack (a finding fails the synth). `npm run synth` (offline) or
 * `npm run deploy` (with AWS credentials; `npx cdk bootstrap` once per account and region).
 */
import { fileURLToPath } from 'node:url';
import { BatonApp } from '@baton/cdk';
import { App, CfnOutput, Stack, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';

const app = new App();
const stack = new Stack(app, 'STACK_NAME');
const baton = new BatonApp(stack, 'App', {
  entry: fileURLToPath(new URL('../src/app.ts', import.meta.url)),
  // The app's auth hook runs on every WebSocket $connect.
  webSocketAuth: 'app',
});
new CfnOutput(stack, 'WebSocketUrl', {
  value: baton.webSocketUrl,
  description: 'What a page passes to new BatonClient({ url })',
});
new CfnOutput(stack, 'IngressUrl', {
  value: baton.ingressUrl,
  description: 'HTTP ingress: POST /send, POST /ask, GET /outcome?to=…&idempotencyKey=… (SigV4)',
});
Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
