import { BATON_ENV, BATON_IAM } from '@baton/aws';
import { App, Duration, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { AwsSolutionsChecks } from 'cdk-nag';
import { describe, expect, it } from 'vitest';
import { BatonApp, type BatonFunctionName } from './BatonApp.ts';
import type { BatonAppProps } from './BatonAppProps.ts';

const entry = new URL('../../../examples/bank/src/app.ts', import.meta.url).pathname;

/** A stack holding one BatonApp; bundling is skipped (the artifact test bundles for real). */
function synth(props: Partial<BatonAppProps> = {}, more?: (stack: Stack, baton: BatonApp) => void) {
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  const stack = new Stack(app, 'Bank', { env: { account: '123456789012', region: 'eu-west-1' } });
  const baton = new BatonApp(stack, 'Baton', { entry, ...props });
  more?.(stack, baton);
  // Synthesized on first use: the cdk-nag test adds its checks to the app before synthesis.
  return {
    app,
    stack,
    baton,
    get template() {
      return Template.fromStack(stack);
    },
  };
}

/** What an SQS event source grants the function it feeds, on that queue. */
const CONSUME = [
  'sqs:ReceiveMessage',
  'sqs:ChangeMessageVisibility',
  'sqs:GetQueueUrl',
  'sqs:DeleteMessage',
  'sqs:GetQueueAttributes',
];

const { stack, baton, template } = synth();

/** The logical id of a construct's CloudFormation resource in `inStack`. */
const idIn = (inStack: Stack, construct: { node: { defaultChild?: unknown } }) =>
  inStack.getLogicalId(construct.node.defaultChild as never);
const idOf = (construct: { node: { defaultChild?: unknown } }) => idIn(stack, construct);

describe('BatonApp', () => {
  it('creates the actor table with its stream, TTL, outbox index and point-in-time recovery, retained', () => {
    template.hasResource('AWS::DynamoDB::Table', {
      Properties: Match.objectLike({
        KeySchema: [
          { AttributeName: 'pk', KeyType: 'HASH' },
          { AttributeName: 'sk', KeyType: 'RANGE' },
        ],
        BillingMode: 'PAY_PER_REQUEST',
        StreamSpecification: { StreamViewType: 'NEW_IMAGE' },
        TimeToLiveSpecification: { AttributeName: 'ttl', Enabled: true },
        PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
        GlobalSecondaryIndexes: [
          Match.objectLike({
            IndexName: 'outbox',
            KeySchema: [
              { AttributeName: 'obPk', KeyType: 'HASH' },
              { AttributeName: 'obAt', KeyType: 'RANGE' },
            ],
            Projection: { ProjectionType: 'KEYS_ONLY' },
          }),
        ],
      }),
      DeletionPolicy: 'Retain',
      UpdateReplacePolicy: 'Retain',
    });
    template.resourceCountIs('AWS::DynamoDB::Table', 2);
  });

  it('deletes the actor table with the stack only when told to', () => {
    const { template: destroyed } = synth({ removalPolicy: RemovalPolicy.DESTROY });
    const tables = destroyed.findResources('AWS::DynamoDB::Table');
    expect(Object.values(tables).map((table) => table.DeletionPolicy)).toEqual([
      'Delete',
      'Delete',
    ]);
  });

  it('creates an encrypted FIFO inbox that refuses plain HTTP, with a FIFO dead-letter queue', () => {
    template.hasResourceProperties('AWS::SQS::Queue', {
      FifoQueue: true,
      ContentBasedDeduplication: false,
      SqsManagedSseEnabled: true,
      VisibilityTimeout: 180,
      RedrivePolicy: {
        deadLetterTargetArn: { 'Fn::GetAtt': [idOf(baton.deadLetterQueue), 'Arn'] },
        maxReceiveCount: 10,
      },
    });
    for (const queue of [baton.inbox, baton.deadLetterQueue, baton.drainQueue]) {
      template.hasResourceProperties('AWS::SQS::QueuePolicy', {
        Queues: [{ Ref: idOf(queue) }],
        PolicyDocument: {
          Statement: [
            Match.objectLike({
              Effect: 'Deny',
              Condition: { Bool: { 'aws:SecureTransport': 'false' } },
            }),
          ],
        },
      });
    }
  });

  it('runs every function on Node 24 with the resources in its environment', () => {
    const functions = template.findResources('AWS::Lambda::Function');
    expect(Object.keys(functions)).toHaveLength(8);
    for (const fn of Object.values(functions)) {
      expect(fn.Properties.Runtime).toBe('nodejs24.x');
      expect(Object.keys(fn.Properties.Environment.Variables).sort()).toEqual(
        [...Object.values(BATON_ENV), 'NODE_OPTIONS'].sort(),
      );
    }
  });

  it('feeds the worker from the inbox in batches with partial failures and capped concurrency', () => {
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      FunctionName: { Ref: idOf(baton.functions.worker) },
      EventSourceArn: { 'Fn::GetAtt': [idOf(baton.inbox), 'Arn'] },
      BatchSize: 10,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      ScalingConfig: { MaximumConcurrency: 10 },
    });
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      FunctionName: { Ref: idOf(baton.functions.stream) },
      EventSourceArn: { 'Fn::GetAtt': [idOf(baton.table), 'StreamArn'] },
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      StartingPosition: 'LATEST',
    });
  });

  it('runs the sweepers every minute', () => {
    for (const name of ['sweeper', 'connectionSweeper'] as const) {
      template.hasResourceProperties('AWS::Events::Rule', {
        ScheduleExpression: 'rate(1 minute)',
        Targets: [
          Match.objectLike({ Arn: { 'Fn::GetAtt': [idOf(baton.functions[name]), 'Arn'] } }),
        ],
      });
    }
  });

  it('routes $connect, $disconnect and $default to the WebSocket function, with access logs', () => {
    const routes = template.findResources('AWS::ApiGatewayV2::Route');
    expect(
      Object.values(routes)
        .map((route) => route.Properties.RouteKey)
        .sort(),
    ).toEqual(['$connect', '$default', '$disconnect']);
    template.hasResourceProperties('AWS::ApiGatewayV2::Stage', {
      StageName: 'live',
      AutoDeploy: true,
      AccessLogSettings: Match.objectLike({ DestinationArn: Match.anyValue() }),
    });
  });

  it('serves the HTTP ingress on a function URL that requires IAM unless told otherwise', () => {
    template.hasResourceProperties('AWS::Lambda::Url', { AuthType: 'AWS_IAM' });
    synth({ ingressAuth: 'none' }).template.hasResourceProperties('AWS::Lambda::Url', {
      AuthType: 'NONE',
    });
  });

  it('relays durable timers from the timer queue, which has a dead-letter queue', () => {
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      FunctionName: { Ref: idOf(baton.functions.relay) },
      EventSourceArn: { 'Fn::GetAtt': [idOf(baton.timerQueue), 'Arn'] },
      FunctionResponseTypes: ['ReportBatchItemFailures'],
    });
    template.hasResourceProperties('AWS::SQS::Queue', {
      RedrivePolicy: Match.objectLike({ maxReceiveCount: 10 }),
      VisibilityTimeout: 180,
    });
  });

  it("gives each function's role exactly the actions BATON_IAM declares for its part", () => {
    const policies = template.findResources('AWS::IAM::Policy');
    for (const name of Object.keys(BATON_IAM) as BatonFunctionName[]) {
      const role = idOf(baton.functions[name].role as never);
      const policy = Object.values(policies).find((p) =>
        p.Properties.Roles.some((r: { Ref: string }) => r.Ref === role),
      );
      const granted = new Set<string>(
        policy!.Properties.PolicyDocument.Statement.flatMap((s: { Action: string | string[] }) =>
          [s.Action].flat(),
        ),
      );
      const declared = BATON_IAM[name].flatMap((statement) => statement.actions);
      for (const action of declared) expect(granted, `${name} ${action}`).toContain(action);
      // Beyond the declaration: writing its own logs, and what an SQS event source grants.
      const fed = name === 'worker' || name === 'drain' || name === 'relay';
      const allowed = ['logs:CreateLogStream', 'logs:PutLogEvents', ...(fed ? CONSUME : [])];
      const extra = [...granted].filter((action) => !declared.includes(action as never));
      expect(
        extra.filter((action) => !allowed.includes(action)),
        name,
      ).toEqual([]);
      expect(
        [...granted].some((action) => action.endsWith('*')),
        name,
      ).toBe(false);
    }
  });

  it('attaches no AWS managed policy to any role', () => {
    for (const role of Object.values(template.findResources('AWS::IAM::Role'))) {
      expect(role.Properties.ManagedPolicyArns).toBeUndefined();
    }
  });

  it('alarms on dead letters, the inbox age, stale outboxes, a late or absent sweeper and every function’s errors', () => {
    expect(Object.keys(baton.alarms).sort()).toEqual(
      [
        'deadLetters',
        'inboxAge',
        'staleOutbox',
        'sweeperLag',
        ...Object.keys(BATON_IAM).map((name) => `${name}Errors`),
      ].sort(),
    );
    template.resourceCountIs('AWS::CloudWatch::Alarm', 4 + Object.keys(BATON_IAM).length);
    template.hasResourceProperties('AWS::Logs::MetricFilter', {
      FilterPattern: Match.stringLikeRegexp('outbox item older than the alarm age'),
    });
    // The sweeper's lag nears SQS's 5-minute dedupe window, or no sweep logged at all.
    template.hasResourceProperties('AWS::Logs::MetricFilter', {
      FilterPattern: Match.stringLikeRegexp('sweep done'),
      MetricTransformations: [Match.objectLike({ MetricValue: '$.lagMs' })],
    });
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Threshold: 240_000,
      Statistic: 'Maximum',
      TreatMissingData: 'breaching',
    });
  });

  it('lets other functions send to actors with grantSend', () => {
    let role: Role | undefined;
    const { stack: other, template: granted } = synth({}, (scope, app) => {
      role = new Role(scope, 'Caller', { assumedBy: new ServicePrincipal('lambda.amazonaws.com') });
      app.grantSend(role);
    });
    const statements = granted.findResources('AWS::IAM::Policy');
    const caller = Object.values(statements).find((p) =>
      p.Properties.Roles.some((r: { Ref: string }) => r.Ref === idIn(other, role!)),
    );
    expect(JSON.stringify(caller)).toContain('sqs:SendMessage');
    expect(JSON.stringify(caller)).toContain('dynamodb:GetItem');
  });

  it('passes cdk-nag’s AwsSolutions checks, with each accepted finding acknowledged in code', () => {
    const { app } = synth();
    Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
    expect(() => app.synth()).not.toThrow();
  });

  it('synthesizes the template in the snapshot (asset hashes aside)', () => {
    const json = JSON.stringify(template.toJSON(), null, 2).replace(/[0-9a-f]{64}/g, '<asset>');
    expect(JSON.parse(json)).toMatchSnapshot();
  });

  it('refuses bad props with one error that lists every problem', () => {
    expect(() =>
      synth({
        entry: '',
        batchSize: 11,
        maxConcurrency: 1,
        workerTimeout: Duration.hours(3),
        ingressAuth: 'open' as never,
        stageName: 'a b',
        logRetentionDays: 2,
      }),
    ).toThrow(
      /entry must be.*\n- batchSize must be an integer from 1 to 10, got 11\n- maxConcurrency .*got 1\n- workerTimeout .*\n- ingressAuth .*\n- stageName .*\n- logRetentionDays must be one CloudWatch Logs offers/s,
    );
  });
});
