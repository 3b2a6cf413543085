/**
 * The bank example's stack: its app module deployed with `BatonApp`, its page on S3 and
 * CloudFront, and the outputs a page and a caller need. Environment-agnostic: `cdk deploy` takes the account and region in use.
 */
import { fileURLToPath } from 'node:url';
import { BatonApp } from '@baton/cdk';
import { CfnOutput, Lazy, Stack } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import { BankPage } from './bankPage.ts';

export function bankStack(scope: Construct, id = 'BatonBank'): { stack: Stack; bank: BatonApp } {
  const stack = new Stack(scope, id, {
    description: 'Baton bank example: exactly-once actors with live queries',
  });
  const bank: BatonApp = new BatonApp(stack, 'Bank', {
    entry: fileURLToPath(new URL('../../examples/bank/src/app.ts', import.meta.url)),
    // The bank signs its users in: its own auth hook checks every $connect.
    webSocketAuth: 'app',
    // Only the bank's own page may open a socket from a browser (its domain is known at deploy).
    allowedOrigins: [
      Lazy.string({ produce: (): string => `https://${page.distribution.distributionDomainName}` }),
    ],
  });
  new CfnOutput(stack, 'WebSocketUrl', {
    value: bank.webSocketUrl,
    description: 'What a page passes to new BatonClient({ url })',
  });
  new CfnOutput(stack, 'IngressUrl', {
    value: bank.ingressUrl,
    description:
      'HTTP ingress: POST /send, POST /ask, GET /outcome?to=…&idempotencyKey=… (SigV4-signed)',
  });
  const page: BankPage = new BankPage(stack, 'Page', {
    webSocketUrl: bank.webSocketUrl,
    webSocketOrigin: bank.webSocketApi.apiEndpoint,
  });
  return { stack, bank };
}
