/**
 * `baton --stack <name>` finds a deployed app through the outputs `BatonApp` writes: this
 * synthesizes one and reads its outputs as CloudFormation would hand them to the CLI.
 */
import { BatonApp } from '@baton/cdk';
import { namesFromOutputs } from '@baton/cli/ops';
import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';

const entry = new URL('../../examples/bank/src/app.ts', import.meta.url).pathname;

/** The stack's outputs as DescribeStacks returns them (values stay unresolved tokens here). */
function outputsOf(stack: Stack) {
  const outputs = Template.fromStack(stack).toJSON().Outputs as Record<
    string,
    { Value: unknown; Description?: string }
  >;
  return Object.values(outputs).map((o) => ({
    OutputValue: JSON.stringify(o.Value),
    ...(o.Description ? { Description: o.Description } : {}),
  }));
}

function appIn(stack: Stack, id: string, outboxShards?: number): BatonApp {
  return new BatonApp(stack, id, {
    entry,
    webSocketAuth: 'app',
    ...(outboxShards === undefined ? {} : { outboxShards }),
  });
}

describe("the CLI's view of a stack's outputs", () => {
  it("reads the table, the queues and the endpoints from BatonApp's outputs", () => {
    const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
    const stack = new Stack(app, 'Bank', { env: { account: '123456789012', region: 'eu-west-1' } });
    const baton = appIn(stack, 'Baton');
    const ref = (construct: { node: { defaultChild?: unknown } }) =>
      JSON.stringify({ Ref: stack.getLogicalId(construct.node.defaultChild as never) });
    const names = namesFromOutputs('Bank', outputsOf(stack));
    expect(names.table).toBe(ref(baton.table));
    expect(names.inboxUrl).toBe(ref(baton.inbox));
    expect(names.deadLetterQueueUrl).toBe(ref(baton.deadLetterQueue));
    expect(names.timerQueueUrl).toBe(ref(baton.timerQueue));
    expect(names.timerDeadLetterQueueUrl).toBe(ref(baton.timerDeadLetterQueue));
    expect(names.streamFailureQueueUrl).toBe(ref(baton.streamFailureQueue));
    expect(names.ingressUrl).toBeDefined();
    expect(names.webSocketUrl).toBeDefined();
    expect(JSON.parse(names.outboxShards!)).toBe('8');
  });

  it('reads the outbox index’s key count the app was deployed with, for the sweeps it runs', () => {
    const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
    const stack = new Stack(app, 'Big', { env: { account: '123456789012', region: 'eu-west-1' } });
    appIn(stack, 'Baton', 32);
    expect(JSON.parse(namesFromOutputs('Big', outputsOf(stack)).outboxShards!)).toBe('32');
  });

  it('refuses a stack with two BatonApps, naming both, and one with none', () => {
    const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
    const stack = new Stack(app, 'Two', { env: { account: '123456789012', region: 'eu-west-1' } });
    appIn(stack, 'Bank');
    appIn(stack, 'Chirper');
    expect(() => namesFromOutputs('Two', outputsOf(stack))).toThrow(
      /holds 2 BatonApps \(Two\/Bank, Two\/Chirper\): pass --table and --queue-url/,
    );
    expect(() => namesFromOutputs('Empty', [])).toThrow(/has no BatonApp outputs/);
  });
});
