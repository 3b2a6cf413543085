import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BATON_ENV, BATON_IAM } from '@baton/aws';
import { MAX_MESSAGE_BYTES } from '@baton/core';
import { App, Duration, Lazy, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import {
  HttpLambdaAuthorizer,
  HttpLambdaResponseType,
} from 'aws-cdk-lib/aws-apigatewayv2-authorizers';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import { Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Code, Function as LambdaFunction, Runtime } from 'aws-cdk-lib/aws-lambda';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { AwsSolutionsChecks } from 'cdk-nag';
import { describe, expect, it } from 'vitest';
import { BatonApp, type BatonFunctionName } from './BatonApp.ts';
import type { BatonAppProps } from './BatonAppProps.ts';

const entry = new URL('../../../examples/bank/src/app.ts', import.meta.url).pathname;

/** A stack holding one BatonApp; bundling is skipped (the artifact test bundles for real). */
function synth(
  props: Partial<BatonAppProps> | ((stack: Stack) => Partial<BatonAppProps>) = {},
  more?: (stack: Stack, baton: BatonApp) => void,
) {
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  const stack = new Stack(app, 'Bank', { env: { account: '123456789012', region: 'eu-west-1' } });
  const baton = new BatonApp(stack, 'Baton', {
    entry,
    webSocketAuth: 'app',
    ...(typeof props === 'function' ? props(stack) : props),
  } as BatonAppProps);
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

/** Props that put the ingress behind a Lambda authorizer made in `stack`. */
function withAuthorizer(stack: Stack): Partial<BatonAppProps> {
  const fn = new LambdaFunction(stack, 'Authorizer', {
    runtime: Runtime.NODEJS_24_X,
    handler: 'index.handler',
    code: Code.fromInline('exports.handler = async () => ({ isAuthorized: false });'),
  });
  // The test's own function, not the construct's: cdk-nag's findings on it are not ours.
  const basic =
    'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]';
  for (const id of [basic, 'AwsSolutions-L1']) {
    Validations.of(fn).acknowledge({ id, reason: 'a test stand-in for the app’s authorizer' });
  }
  const authorizer = new HttpLambdaAuthorizer('Jwt', fn, {
    responseTypes: [HttpLambdaResponseType.SIMPLE],
  });
  return { ingressAuth: { authorizer } };
}

/** The condition that narrows a grant on the table to its idempotency records. */
const OUTCOMES_ONLY = { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['I#*'] } };
const CLAIMS_ONLY = { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['K#*'] } };
const ACTOR_RECORDS_ONLY = { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['A#*'] } };
const WORKFLOW_RECORDS_ONLY = {
  'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['A#wf-*'] },
};

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

  it('runs Contributor Insights on the actor table only when asked, as it is billed per event', () => {
    const actorTable = (t: Template) =>
      Object.values(t.findResources('AWS::DynamoDB::Table')).find(
        (table) => table.Properties.StreamSpecification,
      )!.Properties;
    expect(actorTable(template).ContributorInsightsSpecification).toBeUndefined();
    const { template: insights } = synth({ contributorInsights: true });
    expect(actorTable(insights).ContributorInsightsSpecification).toEqual({ Enabled: true });
    // The connections table and the outbox index stay without it.
    const tables = Object.values(insights.findResources('AWS::DynamoDB::Table'));
    expect(
      tables.filter((table) => table.Properties.ContributorInsightsSpecification),
    ).toHaveLength(1);
    expect(
      actorTable(insights).GlobalSecondaryIndexes[0].ContributorInsightsSpecification,
    ).toBeUndefined();
    expect(() => synth({ contributorInsights: 'yes' as never })).toThrow(
      /contributorInsights must be true or false, got "yes"/,
    );
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
    // Every queue takes what the adapters send, up to SQS's most: its default is 256 KiB.
    const queues = Object.values(template.findResources('AWS::SQS::Queue'));
    expect(queues.length).toBeGreaterThanOrEqual(5);
    for (const queue of queues) expect(queue.Properties.MaximumMessageSize).toBe(MAX_MESSAGE_BYTES);
    for (const queue of [baton.inbox, baton.deadLetterQueue, baton.timerQueue]) {
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
    expect(Object.keys(functions)).toHaveLength(7);
    for (const [id, fn] of Object.entries(functions)) {
      expect(fn.Properties.Runtime).toBe('nodejs24.x');
      // The WebSocket function also learns the declared webSocketAuth, to check the app against.
      const websocket = id === idOf(baton.functions.websocket);
      // The worker also names its turn metrics' namespace and service (on by default).
      const worker = id === idOf(baton.functions.worker);
      // The sweeper also learns how many outboxes to drain at once.
      const sweeper = id === idOf(baton.functions.sweeper);
      // The WebSocket caps and origins only when webSocketLimits and allowedOrigins set them.
      const absent: string[] = [
        BATON_ENV.metrics,
        ...(sweeper ? [] : [BATON_ENV.sweepConcurrency]),
        BATON_ENV.maxSubscriptions,
        BATON_ENV.maxFramesPerSecond,
        BATON_ENV.maxConnectionsPerUser,
        BATON_ENV.allowedOrigins,
      ];
      expect(Object.keys(fn.Properties.Environment.Variables).sort()).toEqual(
        [
          ...Object.values(BATON_ENV).filter((name) => !absent.includes(name)),
          'NODE_OPTIONS',
          ...(websocket ? ['BATON_WEBSOCKET_AUTH'] : []),
          ...(worker ? ['POWERTOOLS_METRICS_NAMESPACE', 'POWERTOOLS_SERVICE_NAME'] : []),
        ].sort(),
      );
      if (websocket) expect(fn.Properties.Environment.Variables.BATON_WEBSOCKET_AUTH).toBe('app');
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
    synth({ ingressAuth: 'none', allowAnonymous: true }).template.hasResourceProperties(
      'AWS::Lambda::Url',
      { AuthType: 'NONE' },
    );
  });

  it('serves the HTTP ingress behind an HTTP API whose every route runs the authorizer, throttled and logged', () => {
    const { template: behind, baton: app } = synth(withAuthorizer);
    behind.resourceCountIs('AWS::Lambda::Url', 0);
    const routes = Object.values(behind.findResources('AWS::ApiGatewayV2::Route')).filter(
      (route) => !route.Properties.RouteKey.startsWith('$'),
    );
    expect(routes.map((route) => route.Properties.RouteKey).sort()).toEqual([
      'GET /outcome',
      'GET /outcome/{id}',
      'GET /workflows/{name}/{id}',
      'POST /ask',
      'POST /send',
      'POST /workflows/{name}/start',
    ]);
    for (const route of routes) {
      expect(route.Properties).toMatchObject({
        AuthorizationType: 'CUSTOM',
        AuthorizerId: { Ref: expect.any(String) },
      });
    }
    behind.hasResourceProperties('AWS::ApiGatewayV2::Authorizer', {
      AuthorizerType: 'REQUEST',
      EnableSimpleResponses: true,
      IdentitySource: ['$request.header.Authorization'],
    });
    behind.hasResourceProperties('AWS::ApiGatewayV2::Stage', {
      StageName: '$default',
      AutoDeploy: true,
      DefaultRouteSettings: { ThrottlingRateLimit: 500, ThrottlingBurstLimit: 1000 },
      AccessLogSettings: Match.objectLike({ DestinationArn: Match.anyValue() }),
    });
    expect(app.ingressApi).toBeDefined();
    expect(app.ingressFunctionUrl).toBeUndefined();
    expect(() =>
      app.grantIngress(
        new Role(app, 'Caller', { assumedBy: new ServicePrincipal('lambda.amazonaws.com') }),
      ),
    ).toThrow(/grantIngress grants IAM callers.*ingressAuth: 'iam'/);
  });

  it('passes cdk-nag’s AwsSolutions checks with the ingress behind an authorizer', () => {
    const { app } = synth(withAuthorizer);
    Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
    expect(() => app.synth()).not.toThrow();
  });

  it('refuses to deploy an app anyone may call unless allowAnonymous is set, saying what to do', () => {
    const refused =
      /this app would be open to anyone \(webSocketAuth: 'none' lets anyone connect\): give the app an auth hook and set webSocketAuth: 'app'.*or set allowAnonymous: true/;
    expect(() => synth({ webSocketAuth: 'none' })).toThrow(refused);
    expect(() => synth({ ingressAuth: 'none' })).toThrow(
      /ingressAuth: 'none' lets anyone call the HTTP ingress/,
    );
    expect(() => synth({ webSocketAuth: undefined as never })).toThrow(
      /webSocketAuth must say who may open a WebSocket: 'app'.* or 'none' \(anyone\), got undefined/,
    );
    expect(() =>
      synth({ webSocketAuth: 'none', ingressAuth: 'none', allowAnonymous: true }),
    ).not.toThrow();
  });

  it("refuses at synth webSocketAuth: 'app' for an app module that exports no auth, saying what to do", () => {
    // Bundling on, as `cdk synth` runs it: the check loads the app before any function is made.
    const app = new App();
    const stack = new Stack(app, 'Notes');
    const noAuth = new URL('./fixtures/noAuthApp.ts', import.meta.url).pathname;
    expect(() => new BatonApp(stack, 'Notes', { entry: noAuth, webSocketAuth: 'app' })).toThrow(
      /noAuthApp\.ts: the app exports no auth, but its BatonApp declares webSocketAuth: 'app': export defineApp\(\{ actors, queries, auth \}\).*or deploy it open/,
    );
  });

  it('refuses an entry that names no file, saying where it looked and what it must be', () => {
    const relative =
      /entry "src\/ap\.ts" is no file: \S+\/src\/ap\.ts does not exist \(a relative entry is read from the folder cdk runs in, \S+\); it must be the path of the app's module, whose default export is defineApp\(\{ actors, queries \}\) from @baton\/core/;
    expect(() => synth({ entry: 'src/ap.ts' })).toThrow(relative);
    const folder = new URL('./fixtures', import.meta.url).pathname;
    expect(() => synth({ entry: folder })).toThrow(
      /entry "\S+\/fixtures" is a folder \(\S+\/fixtures\), not a file; it must be the path of the app's module/,
    );
  });

  it("refuses at synth an entry without a default export, with baton dev's words, from its source alone", () => {
    const noDefault = new URL('./fixtures/noDefaultApp.ts', import.meta.url).pathname;
    // Bundling on, as `cdk synth` runs it; not first as esbuild's error in the bundling.
    const stack = new Stack(new App(), 'Notes');
    expect(() => new BatonApp(stack, 'Notes', { entry: noDefault, webSocketAuth: 'app' })).toThrow(
      /^invalid BatonApp props:\n- entry "\S+noDefaultApp\.ts" has no default export \(it exports app\): the entry must end with export default defineApp\(\{ actors, queries \}\) \(defineApp from @baton\/core\)$/,
    );
    // `cdk ls`, or a stack this synth does not bundle, reads no source.
    expect(() => synth({ entry: noDefault })).not.toThrow();
  });

  it('refuses at synth an entry that does not parse, naming where', () => {
    const dir = mkdtempSync(join(import.meta.dirname, 'fixtures', '.entry-'));
    try {
      const broken = join(dir, 'app.ts');
      writeFileSync(
        broken,
        "import { defineApp } from '@baton/core';\nexport default defineApp({ actors: [ });\n",
      );
      const stack = new Stack(new App(), 'Notes');
      expect(() => new BatonApp(stack, 'Notes', { entry: broken, webSocketAuth: 'app' })).toThrow(
        /entry "\S+app\.ts" does not parse: \S*app\.ts:2:\d+: /,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('leaves the missing WebSocket authorizer to cdk-nag when the app’s own auth does not run on $connect', () => {
    const { app } = synth({ webSocketAuth: 'none', allowAnonymous: true });
    Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
    expect(() => app.synth()).toThrow(/AwsSolutions-APIG4/);
  });

  it('throttles the WebSocket stage and reserves (and caps) the concurrency of the functions callers reach and of the stream', () => {
    template.hasResourceProperties('AWS::ApiGatewayV2::Stage', {
      StageName: 'live',
      DefaultRouteSettings: { ThrottlingRateLimit: 500, ThrottlingBurstLimit: 1000 },
    });
    const reserved = (t: Template) =>
      Object.fromEntries(
        Object.entries(t.findResources('AWS::Lambda::Function'))
          .filter(([, fn]) => fn.Properties.ReservedConcurrentExecutions !== undefined)
          .map(([id, fn]) => [id, fn.Properties.ReservedConcurrentExecutions]),
      );
    expect(reserved(template)).toEqual({
      [idOf(baton.functions.websocket)]: 100,
      [idOf(baton.functions.ingress)]: 50,
      [idOf(baton.functions.stream)]: 20,
    });
    const { template: custom, baton: tuned } = synth({
      throttle: { rateLimit: 20, burstLimit: 40 },
      reservedConcurrency: { websocket: 7 },
    });
    custom.hasResourceProperties('AWS::ApiGatewayV2::Stage', {
      DefaultRouteSettings: { ThrottlingRateLimit: 20, ThrottlingBurstLimit: 40 },
    });
    expect(Object.values(reserved(custom)).sort()).toEqual([20, 50, 7]);
    void tuned;
    expect(reserved(synth({ reservedConcurrency: false }).template)).toEqual({});
  });

  it('sends what the stream function gives up on to a queue, bisecting failing batches and giving up after an hour', () => {
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      FunctionName: { Ref: idOf(baton.functions.stream) },
      BisectBatchOnFunctionError: true,
      MaximumRecordAgeInSeconds: 3600,
      MaximumRetryAttempts: 10,
      DestinationConfig: {
        OnFailure: { Destination: { 'Fn::GetAtt': [idOf(baton.streamFailureQueue), 'Arn'] } },
      },
    });
    template.hasResourceProperties(
      'AWS::SQS::Queue',
      Match.objectLike({ SqsManagedSseEnabled: true }),
    );
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
      const fed = name === 'worker' || name === 'relay';
      // The stream's mapping sends what it gives up on to its failure queue, with its role.
      const onFailure =
        name === 'stream' ? ['sqs:SendMessage', 'sqs:GetQueueAttributes', 'sqs:GetQueueUrl'] : [];
      const allowed = [
        'logs:CreateLogStream',
        'logs:PutLogEvents',
        ...(fed ? CONSUME : []),
        ...onFailure,
      ];
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

  it('has each alarm in the runbook, docs/operations.md', () => {
    const runbook = readFileSync(join(import.meta.dirname, '../../../docs/operations.md'), 'utf8');
    const ids = Object.values(baton.alarms).map((alarm) => alarm.node.id);
    expect(ids.length).toBeGreaterThan(20);
    expect(ids.filter((id) => !runbook.includes(`\`${id}\``))).toEqual([]);
  });

  it('attaches no AWS managed policy to any role', () => {
    for (const role of Object.values(template.findResources('AWS::IAM::Role'))) {
      expect(role.Properties.ManagedPolicyArns).toBeUndefined();
    }
  });

  it('alarms on dead letters (the queue’s, its oldest nearing the queue’s retention, and the engine’s), workflows left paused or ended with failed compensations, a channel’s gaps forgotten, the inbox age, stream records given up on, failing drains, stale outboxes, a late or absent sweeper, every function’s errors and the scale limits', () => {
    // The scale limits' alarms are checked one by one in scaleAlarms.test.ts.
    const scale = [
      'inboxSendRate',
      'tableThrottledRequests',
      'tableWriteThrottleEvents',
      'streamIteratorAge',
      'accountConcurrency',
      'pushThrottles',
      ...['worker', 'stream', 'websocket', 'ingress'].map((name) => `${name}Throttles`),
    ];
    const names = [
      'deadLetters',
      'deadLettersExpiring',
      'engineDeadLetters',
      'keptDeadLetters',
      'pausedWorkflows',
      'compensationFailures',
      'stateTooLarge',
      'forgottenGaps',
      'inboxAge',
      'staleOutbox',
      'drainFailures',
      'sweeperLag',
      'streamFailures',
      'timerDeadLetters',
      ...Object.keys(BATON_IAM).map((name) => `${name}Errors`),
      ...scale,
    ];
    expect(Object.keys(baton.alarms).sort()).toEqual(names.sort());
    // The timer relay's own dead-letter queue, watched.
    const queues = template.findResources('AWS::SQS::Queue');
    const [timerDeadLetters] = Object.keys(queues).filter((id) =>
      id.startsWith('BatonTimerDeadLetters'),
    );
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      MetricName: 'ApproximateNumberOfMessagesVisible',
      Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [timerDeadLetters, 'QueueName'] } }],
      Threshold: 1,
    });
    template.resourceCountIs('AWS::CloudWatch::Alarm', names.length);
    // The inbox's dead-letter queue, its messages counted whether visible or not: those
    // `baton queue-dead-letters list` looks at, hidden a few seconds, do not clear the alarm.
    const deadLetters = template.toJSON().Resources[idOf(baton.alarms.deadLetters!)].Properties;
    const series = (deadLetters.Metrics as { Id: string; MetricStat?: { Metric: unknown } }[])
      .filter((query) => query.MetricStat)
      .map((query) => [query.Id, query.MetricStat!.Metric]);
    const inDeadLetters = [
      { Name: 'QueueName', Value: { 'Fn::GetAtt': [idOf(baton.deadLetterQueue), 'QueueName'] } },
    ];
    expect(Object.fromEntries(series)).toEqual({
      visible: {
        Namespace: 'AWS/SQS',
        MetricName: 'ApproximateNumberOfMessagesVisible',
        Dimensions: inDeadLetters,
      },
      hidden: {
        Namespace: 'AWS/SQS',
        MetricName: 'ApproximateNumberOfMessagesNotVisible',
        Dimensions: inDeadLetters,
      },
    });
    expect(deadLetters.Metrics).toContainEqual(
      expect.objectContaining({ Expression: 'SUM([visible, hidden])', ReturnData: true }),
    );
    expect(deadLetters).toMatchObject({ Threshold: 1, TreatMissingData: 'notBreaching' });
    // Its oldest message 4 days before SQS deletes it, at the queue's own retention: the last
    // page before the loss, which DeadLettersAlarm, raised since it arrived, does not give.
    const retention = template.toJSON().Resources[idOf(baton.deadLetterQueue)].Properties
      .MessageRetentionPeriod as number;
    expect(retention).toBe(14 * 86_400);
    const expiring =
      template.toJSON().Resources[idOf(baton.alarms.deadLettersExpiring!)].Properties;
    expect(expiring).toMatchObject({
      Namespace: 'AWS/SQS',
      MetricName: 'ApproximateAgeOfOldestMessage',
      Dimensions: inDeadLetters,
      Statistic: 'Maximum',
      Threshold: retention - 4 * 86_400,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      TreatMissingData: 'notBreaching',
    });
    expect(expiring.AlarmDescription).toMatch(
      /10 days or more in the inbox's dead-letter queue: SQS deletes it 14 days after it got there, in 4 days at most.*`baton queue-dead-letters list`.*`baton queue-dead-letters redrive`/,
    );
    // The worker's log lines for each message the engine dead-letters in an actor's turn: one
    // that failed every attempt, one ended at once, and the line an earlier Baton logged for
    // both (its workers still run while a deploy rolls).
    template.hasResourceProperties('AWS::Logs::MetricFilter', {
      FilterPattern:
        '{ ($.message = "message dead-lettered: it failed every attempt") || ($.message = "message dead-lettered at once: a retry would not apply it") || ($.message = "message dead-lettered after repeated failures") }',
    });
    // The dead letters kept, as the sweeper counts them after each sweep: a standing count, its
    // alarm left as it is by a sweep that logged none.
    template.hasResourceProperties('AWS::Logs::MetricFilter', {
      FilterPattern: Match.stringLikeRegexp('sweep done.*\\$\\.deadLetters = "\\*"'),
      MetricTransformations: [Match.objectLike({ MetricValue: '$.deadLetters' })],
    });
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      MetricName: Match.stringLikeRegexp('^KeptDeadLetters-'),
      Threshold: 1,
      TreatMissingData: 'ignore',
    });
    template.hasResourceProperties('AWS::Logs::MetricFilter', {
      FilterPattern: Match.stringLikeRegexp('outbox item older than the alarm age'),
    });
    // A workflow instance left paused with no replay due (not one a recheck may still carry on
    // while a deploy rolls out), from the worker's line for it.
    const workerLogs = idOf(baton.functions.worker.logGroup as never);
    template.hasResourceProperties('AWS::Logs::MetricFilter', {
      LogGroupName: { Ref: workerLogs },
      FilterPattern: '{ $.message = "workflow left paused: no replay of it is due" }',
      MetricTransformations: [
        Match.objectLike({ MetricName: Match.stringLikeRegexp('^WorkflowsLeftPaused-') }),
      ],
    });
    expect(
      Object.values(template.findResources('AWS::CloudWatch::Alarm')).find((alarm) =>
        /^WorkflowsLeftPaused-/.test(alarm.Properties.MetricName),
      )?.Properties,
    ).toMatchObject({
      Statistic: 'Sum',
      Period: 300,
      Threshold: 1,
      EvaluationPeriods: 1,
      TreatMissingData: 'notBreaching',
    });
    // A message kept for STATE_TOO_LARGE, from the worker's line for each (and an earlier
    // Baton's line for each such rejection).
    template.hasResourceProperties('AWS::Logs::MetricFilter', {
      LogGroupName: { Ref: workerLogs },
      FilterPattern:
        '{ (($.message = "message dead-lettered at once: a retry would not apply it") || ($.message = "message rejected")) && ($.code = "STATE_TOO_LARGE") }',
      MetricTransformations: [
        Match.objectLike({
          MetricName: Match.stringLikeRegexp('^StateTooLarge-'),
          MetricValue: '1',
        }),
      ],
    });
    expect(
      Object.values(template.findResources('AWS::CloudWatch::Alarm')).find((alarm) =>
        /^StateTooLarge-/.test(alarm.Properties.MetricName),
      )?.Properties,
    ).toMatchObject({
      Statistic: 'Sum',
      Period: 300,
      Threshold: 1,
      TreatMissingData: 'notBreaching',
    });
    // A channel's gaps forgotten: a message that comes there is kept. The line an earlier
    // Baton logged counts too, while a deploy rolls.
    template.hasResourceProperties('AWS::Logs::MetricFilter', {
      LogGroupName: { Ref: workerLogs },
      FilterPattern:
        '{ ($.message = "gaps on a channel forgotten: a message there is kept as a dead letter") || ($.message = "gaps on a channel forgotten: a message missing there is skipped") }',
      MetricTransformations: [
        Match.objectLike({
          MetricName: Match.stringLikeRegexp('^ForgottenGaps-'),
          MetricValue: '1',
        }),
      ],
    });
    expect(
      Object.values(template.findResources('AWS::CloudWatch::Alarm')).find((alarm) =>
        /^ForgottenGaps-/.test(alarm.Properties.MetricName),
      )?.Properties,
    ).toMatchObject({ Statistic: 'Sum', Threshold: 1, TreatMissingData: 'notBreaching' });
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

  it('has a runbook entry in docs/operations.md for every alarm, where the descriptions send the operator', () => {
    const runbook = readFileSync(join(import.meta.dirname, '../../../docs/operations.md'), 'utf8');
    const ids = Object.values(baton.alarms).map((alarm) => alarm.node.id);
    // The functions' errors alarms share one entry, `<function>ErrorsAlarm`.
    const missing = ids.filter(
      (id) => !runbook.includes(`\`${id.endsWith('ErrorsAlarm') ? '<function>ErrorsAlarm' : id}\``),
    );
    expect(ids.length).toBeGreaterThan(20);
    expect(missing).toEqual([]);
  });

  it('sends every alarm into ALARM and back to OK to the actions addAlarmActions gives', () => {
    const told = synth({}, (inStack, app) => {
      const topic = new Topic(inStack, 'OnCall');
      app.addAlarmActions(new SnsAction(topic));
    });
    const topic = {
      Ref: told.stack.getLogicalId(told.stack.node.findChild('OnCall').node.defaultChild as never),
    };
    const alarms = Object.values(told.template.findResources('AWS::CloudWatch::Alarm'));
    expect(alarms.length).toBe(Object.keys(told.baton.alarms).length);
    for (const alarm of alarms) {
      expect(alarm.Properties).toMatchObject({ AlarmActions: [topic], OKActions: [topic] });
    }
  });

  it('adds one dashboard showing every alarm, the inbox, dead letters, sweeper lag and errors', () => {
    template.resourceCountIs('AWS::CloudWatch::Dashboard', 1);
    const [dashboard] = Object.values(template.findResources('AWS::CloudWatch::Dashboard'));
    const body = JSON.stringify(dashboard!.Properties.DashboardBody);
    for (const title of ['Alarms', 'Inbox', 'Dead letters', 'Sweeper lag', 'Function errors']) {
      expect(body).toContain(title);
    }
  });

  it('publishes the worker’s turn metrics by default and graphs them; metrics: false turns them off', () => {
    const worker = (t: Template, b: BatonApp) =>
      t.findResources('AWS::Lambda::Function')[idOf(b.functions.worker)]!.Properties.Environment
        .Variables;
    const body = (t: Template) =>
      JSON.stringify(
        Object.values(t.findResources('AWS::CloudWatch::Dashboard'))[0]!.Properties.DashboardBody,
      );
    expect(worker(template, baton)).toMatchObject({
      POWERTOOLS_METRICS_NAMESPACE: 'Baton',
      POWERTOOLS_SERVICE_NAME: 'Bank/Baton',
    });
    expect(worker(template, baton)).not.toHaveProperty(BATON_ENV.metrics);
    expect(body(template)).toContain('Messages by outcome');
    expect(body(template)).toContain('MessagesDeadLettered');

    const off = synth({ metrics: false });
    const offWorker = worker(off.template, off.baton);
    expect(offWorker[BATON_ENV.metrics]).toBe('off');
    expect(offWorker).not.toHaveProperty('POWERTOOLS_METRICS_NAMESPACE');
    expect(body(off.template)).not.toContain('Messages by outcome');
  });

  it('gives every function the outbox index’s key count, 8 unless outboxShards raises it', () => {
    const shardsOf = (t: Template) =>
      Object.values(t.findResources('AWS::Lambda::Function')).map(
        (fn) => fn.Properties.Environment.Variables[BATON_ENV.outboxShards],
      );
    expect(new Set(shardsOf(template))).toEqual(new Set(['8']));
    const raised = synth({ outboxShards: 32 });
    expect(shardsOf(raised.template)).toEqual(Array(7).fill('32'));
    expect(() => synth({ outboxShards: 0 })).toThrow(
      /outboxShards must be an integer from 1 to 100, got 0/,
    );
    expect(() => synth({ outboxShards: 101 })).toThrow(/outboxShards .*got 101/);
  });

  it('tells the sweeper how many groups of outboxes to drain at once, 2 unless sweeperConcurrency raises it', () => {
    const sweeperEnv = ({ template: t, baton: app }: { template: Template; baton: BatonApp }) =>
      t.findResources('AWS::Lambda::Function')[idOf(app.functions.sweeper)]?.Properties.Environment
        .Variables[BATON_ENV.sweepConcurrency];
    expect(sweeperEnv({ template, baton })).toBe('2');
    expect(sweeperEnv(synth({ sweeperConcurrency: 16 }))).toBe('16');
    expect(() => synth({ sweeperConcurrency: 0 })).toThrow(
      /sweeperConcurrency must be an integer from 1 to 100, got 0/,
    );
  });

  it('gives the WebSocket function the caps webSocketLimits sets, and only those', () => {
    const websocketEnv = ({ template: t, baton: app }: { template: Template; baton: BatonApp }) =>
      t.findResources('AWS::Lambda::Function')[idOf(app.functions.websocket)]?.Properties
        .Environment.Variables;
    expect(websocketEnv({ template, baton })).not.toHaveProperty(BATON_ENV.maxConnectionsPerUser);
    const capped = websocketEnv(synth({ webSocketLimits: { maxConnectionsPerUser: 5 } }));
    expect(capped[BATON_ENV.maxConnectionsPerUser]).toBe('5');
    expect(capped).not.toHaveProperty(BATON_ENV.maxSubscriptions);
    expect(() => synth({ webSocketLimits: { maxFramesPerSecond: 0 } })).toThrow(
      /webSocketLimits.maxFramesPerSecond must be an integer from 1 to 100000, got 0/,
    );
  });

  it('gives the WebSocket function the origins allowedOrigins lists, each checked at synth', () => {
    const websocketEnv = ({ template: t, baton: app }: { template: Template; baton: BatonApp }) =>
      t.findResources('AWS::Lambda::Function')[idOf(app.functions.websocket)]?.Properties
        .Environment.Variables;
    expect(websocketEnv({ template, baton })).not.toHaveProperty(BATON_ENV.allowedOrigins);
    const page = Lazy.string({ produce: () => 'https://d111.cloudfront.net' });
    const listed = websocketEnv(
      synth({ allowedOrigins: ['https://app.example.com', 'http://localhost:5173', page] }),
    );
    expect(listed[BATON_ENV.allowedOrigins]).toBe(
      'https://app.example.com,http://localhost:5173,https://d111.cloudfront.net',
    );
    expect(() => synth({ allowedOrigins: ['app.example.com'] })).toThrow(
      /allowedOrigins holds "app.example.com", which is no origin: give scheme:\/\/host\[:port\]/,
    );
    expect(() => synth({ allowedOrigins: ['https://a.example,https://b.example'] })).toThrow(
      /"https:\/\/a.example,https:\/\/b.example" is two origins or none/,
    );
    expect(() => synth({ allowedOrigins: [] })).toThrow(
      /allowedOrigins is empty: list the origins .* or leave it unset/,
    );
  });

  /** The actions a role's policies allow, by resource (as JSON). */
  function grantedTo(grant: (app: BatonApp, role: Role) => void) {
    let role: Role | undefined;
    const {
      stack: other,
      template: granted,
      app,
    } = synth({}, (scope, baton) => {
      role = new Role(scope, 'Cli', { assumedBy: new ServicePrincipal('lambda.amazonaws.com') });
      grant(baton, role);
    });
    const policies = Object.values(granted.findResources('AWS::IAM::Policy')).filter((p) =>
      p.Properties.Roles.some((r: { Ref: string }) => r.Ref === idIn(other, role!)),
    );
    const actions = policies
      .flatMap((p) => p.Properties.PolicyDocument.Statement)
      .flatMap((st: { Action: string | string[] }) => [st.Action].flat());
    return { actions: [...new Set(actions)].sort(), policies, app };
  }

  it('grants the CLI’s read-only role reads, queue depths, metrics and its functions’ logs only, on its own resources', () => {
    const { actions, policies } = grantedTo((app, role) => app.grantReadOnly(role));
    expect(actions).toEqual([
      'cloudformation:DescribeStackResources',
      'cloudformation:DescribeStacks',
      'cloudwatch:GetMetricData',
      'dynamodb:BatchGetItem',
      'dynamodb:GetItem',
      'dynamodb:Query',
      'dynamodb:Scan',
      'logs:DescribeLogStreams',
      'logs:FilterLogEvents',
      'logs:GetLogEvents',
      'logs:GetQueryResults',
      'logs:StartQuery',
      'sqs:ChangeMessageVisibility',
      'sqs:GetQueueAttributes',
      'sqs:ListDeadLetterSourceQueues',
      'sqs:ReceiveMessage',
    ]);
    // Only GetMetricData and GetQueryResults, which take no resource, are on "*".
    const statements = policies.flatMap((p) => p.Properties.PolicyDocument.Statement);
    expect(
      statements.filter((st: { Resource: unknown }) => st.Resource === '*').map((st) => st.Action),
    ).toEqual([['cloudwatch:GetMetricData', 'logs:GetQueryResults']]);
    // It reads the logs of the app's functions, each log group by name, and no other.
    const logReads = statements.find((st: { Action: unknown }) =>
      [st.Action].flat().includes('logs:FilterLogEvents'),
    );
    expect(logReads.Resource).toHaveLength(Object.keys(BATON_IAM).length);
    expect(JSON.stringify(logReads.Resource)).not.toContain('"*"');
    // It receives (to peek) from the inbox's dead-letter queue alone, never from the inbox.
    const receives = statements.filter((st: { Action: unknown }) =>
      [st.Action].flat().includes('sqs:ReceiveMessage'),
    );
    expect(receives).toHaveLength(1);
    expect(JSON.stringify(receives[0].Resource)).toMatch(
      /"Fn::GetAtt":\["BatonDeadLetters[0-9A-F]+","Arn"\]/,
    );
  });

  it('grants the CLI’s operator conditional writes, inbox sends and purges of the two notice queues besides, nothing that deletes a table or a queue, cdk-nag clean', () => {
    const { actions, app, policies } = grantedTo((baton, role) => baton.grantOperator(role));
    expect(actions).toEqual(
      expect.arrayContaining([
        'dynamodb:ConditionCheckItem',
        'dynamodb:DeleteItem',
        'dynamodb:PutItem',
        'dynamodb:UpdateItem',
        'sqs:DeleteMessage',
        'sqs:SendMessage',
      ]),
    );
    expect(actions.filter((a) => /Delete(Table|Queue)|\*/.test(a))).toEqual([]);
    // It purges the timer queue's dead letters and the stream's failures, never the inbox's.
    const purges = policies
      .flatMap((p) => p.Properties.PolicyDocument.Statement)
      .filter((st: { Action: unknown }) => [st.Action].flat().includes('sqs:PurgeQueue'));
    expect(purges).toHaveLength(1);
    expect(JSON.stringify(purges[0].Resource)).toMatch(
      /BatonTimerDeadLetters.*BatonStreamFailures/,
    );
    Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
    // Synthesized again: grantedTo read the template before the checks were added.
    expect(() => app.synth({ force: true })).not.toThrow();
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
    expect(caller!.Properties.PolicyDocument.Statement).toContainEqual(
      expect.objectContaining({
        Action: ['dynamodb:GetItem', 'dynamodb:Query'],
        Condition: OUTCOMES_ONLY,
      }),
    );
  });

  it("lets the ingress and grantSend read outcomes and workflow instances' records and write key claims only, never another actor's record", () => {
    let role: Role | undefined;
    const {
      stack: other,
      template: granted,
      baton: app,
    } = synth({}, (scope, baton) => {
      role = new Role(scope, 'Caller', { assumedBy: new ServicePrincipal('lambda.amazonaws.com') });
      baton.grantSend(role);
    });
    const policies = Object.values(granted.findResources('AWS::IAM::Policy'));
    const ingress = idIn(other, app.functions.ingress.role as never);
    for (const roleId of [idIn(other, role!), ingress]) {
      const policy = policies.find((p) =>
        p.Properties.Roles.some((r: { Ref: string }) => r.Ref === roleId),
      );
      const onTable = policy!.Properties.PolicyDocument.Statement.filter(
        (statement: { Resource: unknown }) =>
          JSON.stringify(statement.Resource).includes(idIn(other, app.table)),
      );
      // An outcome is an item of its own or in its actor's outcome pages (a Query).
      const outcomes = expect.objectContaining({
        Action: ['dynamodb:GetItem', 'dynamodb:Query'],
        Condition: OUTCOMES_ONLY,
      });
      const claims = expect.objectContaining({
        Action: ['dynamodb:GetItem', 'dynamodb:PutItem'],
        Condition: CLAIMS_ONLY,
      });
      // `GET /workflows/<name>/<id>` and a callback token's check read an instance's record.
      const workflows = expect.objectContaining({
        Action: 'dynamodb:GetItem',
        Condition: WORKFLOW_RECORDS_ONLY,
      });
      expect(onTable, roleId).toEqual([outcomes, workflows, claims]);
    }
  });

  it("lets the WebSocket, stream and relay functions read actors' partitions and outcomes, never a claim or an effect mark", () => {
    const policies = Object.values(template.findResources('AWS::IAM::Policy'));
    for (const name of ['websocket', 'stream', 'relay'] as const) {
      const roleId = idOf(baton.functions[name].role as never);
      const statements = policies
        .filter((p) => p.Properties.Roles.some((r: { Ref: string }) => r.Ref === roleId))
        .flatMap((p) => p.Properties.PolicyDocument.Statement);
      // The table's own ARN (its stream's is `StreamArn`, for the stream's event source).
      const onTable = statements.filter(
        (statement: { Resource: unknown }) =>
          JSON.stringify(statement.Resource) ===
          JSON.stringify({ 'Fn::GetAtt': [idOf(baton.table), 'Arn'] }),
      );
      const conditions = onTable.map((s: { Condition?: unknown }) => s.Condition);
      expect(conditions, name).toContainEqual(ACTOR_RECORDS_ONLY);
      // Every grant on the table is on a part of it: none reads the whole table.
      expect(conditions, name).not.toContain(undefined);
    }
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

  it.each([1, 3])(
    "refuses maxReceiveCount %i, at or below the workers' maxAttempts, at synth",
    (maxReceiveCount) => {
      expect(() => synth({ maxReceiveCount })).toThrow(
        /maxReceiveCount must be above the workers' maxAttempts \(3\).*set 4 or more/,
      );
    },
  );

  it('takes maxReceiveCount 4, the least its error asks for', () => {
    expect(() => synth({ maxReceiveCount: 4 })).not.toThrow();
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
