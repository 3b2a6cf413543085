/**
 * The bank example on AWS: `pnpm --filter @baton/infra synth` (offline) or `… deploy`.
 * The stack is environment-agnostic; `cdk deploy` takes the account and region of the
 * credentials in use.
 */
import { fileURLToPath } from 'node:url';
import { BatonApp } from '@baton/cdk';
import { App, CfnOutput, Stack, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';

const app = new App();
const stack = new Stack(app, 'BatonBank', {
  description: 'Baton bank example: exactly-once actors with live queries',
});
const bank = new BatonApp(stack, 'Bank', {
  entry: fileURLToPath(new URL('../../examples/bank/src/app.ts', import.meta.url)),
});
new CfnOutput(stack, 'WebSocketUrl', {
  value: bank.webSocketUrl,
  description: 'What a page passes to new BatonClient({ url })',
});
new CfnOutput(stack, 'IngressUrl', {
  value: bank.ingressUrl.url,
  description: 'HTTP ingress: POST /send, POST /ask, GET /outcome/<id> (SigV4-signed)',
});
Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
