/**
 * The CDK app: the bank's stack, checked with cdk-nag's AwsSolutions pack (a finding fails the
 * synth). `pnpm --filter @baton/infra synth` (offline) or `… deploy`.
 */
import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { bankStack } from '../lib/bankStack.ts';

const app = new App();
bankStack(app);
Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
