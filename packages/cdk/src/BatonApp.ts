import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  BATON_ENV,
  BATON_IAM,
  CLAIM_LEADING_KEYS,
  connectionsTableDefinition,
  DEFAULT_METRICS_NAMESPACE,
  type IamResource,
  OUTBOX_INDEX,
  OUTCOME_LEADING_KEYS,
  TTL_ATTRIBUTE,
  tableDefinition,
} from '@baton/aws';
import { type CfnElement, Duration, RemovalPolicy, Stack, Token, Validations } from 'aws-cdk-lib';
import { AccessLogFormat } from 'aws-cdk-lib/aws-apigateway';
import * as apigwv2 from 'aws-cdk-lib/aws-apigatewayv2';
import { WebSocketLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import type * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { DynamoEventSource, SqsDlq, SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import { LogLevel, NodejsFunction, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { createAlarms, nameAlarmTarget } from './alarms.ts';
import { appHasAuth } from './appHasAuth.ts';
import type { BatonAppProps } from './BatonAppProps.ts';
import { createDashboard } from './dashboard.ts';
import { ingressEndpoint } from './ingressEndpoint.ts';
import { grantOperator, grantReadOnly } from './operatorGrants.ts';
import { operatorOutputs } from './operatorOutputs.ts';
import { findProjectRoot, lockFile } from './projectRoot.ts';
import { NO_AUTH, WEBSOCKET_AUTH_ENV } from './requireConnectAuth.ts';
import { createScaleAlarms } from './scaleAlarms.ts';
import { tableSchema } from './tableSchema.ts';
import { validateProps } from './validateProps.ts';

/** The functions of a Baton app, by the part of `BATON_IAM` each runs. */
export type BatonFunctionName = keyof typeof BATON_IAM;

/**
 * A Baton app on AWS: the actor table, the FIFO inbox with its dead-letter queue, the timer
 * queue, the Lambda functions of the turn pipeline (worker, sweeper, timer relay, HTTP ingress)
 * and of live queries (WebSocket routes, stream, connection sweeper), the WebSocket API,
 * least-privilege IAM read from `@baton/aws`'s declared actions, and alarms.
 *
 * It refuses to deploy an app anyone may call unless told to (`allowAnonymous`): the WebSocket
 * is protected by the app's own `auth` (`webSocketAuth: 'app'`), the HTTP ingress by IAM or an
 * authorizer (`ingressAuth`). Both doors are throttled and their functions' concurrency capped.
 *
 * @example
 * const bank = new BatonApp(this, 'Bank', { entry: 'src/app.ts', webSocketAuth: 'app' });
 * new CfnOutput(this, 'WebSocketUrl', { value: bank.webSocketUrl });
 * bank.grantSend(myOtherFunction);
 */
export class BatonApp extends Construct {
  /** The actor table: records, outboxes, idempotency records, dead letters. */
  readonly table: dynamodb.Table;
  /** The live queries' connections, subscriptions and query instances. */
  readonly connectionsTable: dynamodb.Table;
  /** The FIFO inbox: one message group per actor. */
  readonly inbox: sqs.Queue;
  /** Where the inbox moves a message received `maxReceiveCount` times. */
  readonly deadLetterQueue: sqs.Queue;
  /** Durable timers, armed with a delay until due; the relay fires them into the inbox. */
  readonly timerQueue: sqs.Queue;
  /**
   * Where the timer queue moves a message the relay failed on 10 times. Its timers stay stored:
   * the sweeper fires each once it is a minute past due.
   */
  readonly timerDeadLetterQueue: sqs.Queue;
  /**
   * The `service` dimension of the worker's turn metrics (namespace `Baton`): the app's path;
   * `undefined` with `metrics: false`.
   */
  readonly metricsService: string | undefined;
  /** Every function, by the part it runs. */
  readonly functions: Readonly<Record<BatonFunctionName, NodejsFunction>>;
  /** Where the HTTP ingress is served: its function URL, or its HTTP API's stage URL. */
  readonly ingressUrl: string;
  /** The ingress's function URL, with `ingressAuth` `'iam'` or `'none'`. */
  readonly ingressFunctionUrl: lambda.FunctionUrl | undefined;
  /** The HTTP API in front of the ingress, with `ingressAuth: { authorizer }`. */
  readonly ingressApi: apigwv2.HttpApi | undefined;
  /**
   * Where the table's stream mapping sends what it could not process (the batch's shard and
   * sequence numbers, after its retries, bisections or maximum age), instead of dropping it.
   */
  readonly streamFailureQueue: sqs.Queue;
  readonly webSocketApi: apigwv2.WebSocketApi;
  readonly webSocketStage: apigwv2.WebSocketStage;
  /**
   * The alarms, by what they watch: failures (dead letters, errors, stale outboxes, a late
   * sweeper) and nearing the scale limits (inbox age and send rate, table throttling, function
   * throttles, the stream's iterator age, the account's concurrency), at `alarmThresholds`.
   */
  readonly alarms: Readonly<Record<string, cloudwatch.Alarm>>;
  /**
   * The app's CloudWatch dashboard: alarms, inbox, dead letters, sweeper lag, errors, throttling,
   * the stream's iterator age and concurrency.
   */
  readonly dashboard: cloudwatch.Dashboard;

  constructor(scope: Construct, id: string, props: BatonAppProps) {
    super(scope, id);
    const settings = validateProps(props);
    const entry = resolve(props.entry);
    // Said at synth, not first at the WebSocket function's cold start (which checks it too).
    // Only when this synth bundles the functions: `cdk ls` and skipped stacks load no app.
    if (
      settings.webSocketAuth === 'app' &&
      Stack.of(this).bundlingRequired &&
      appHasAuth(entry) === false
    ) {
      throw new Error(`invalid BatonApp props:\n- ${props.entry}: ${NO_AUTH}`);
    }
    const projectRoot = props.projectRoot ? resolve(props.projectRoot) : findProjectRoot(entry);

    // The layouts the store and the registry read and write, from `@baton/aws`.
    const actors = tableSchema(tableDefinition('actors'));
    this.table = new dynamodb.Table(this, 'Table', {
      partitionKey: actors.partitionKey,
      ...(actors.sortKey ? { sortKey: actors.sortKey } : {}),
      billingMode: dynamodb.BillingMode.PAY_PER_REQUEST,
      stream: dynamodb.StreamViewType.NEW_IMAGE,
      timeToLiveAttribute: TTL_ATTRIBUTE,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      removalPolicy: props.removalPolicy ?? RemovalPolicy.RETAIN,
    });
    for (const index of actors.indexes) this.table.addGlobalSecondaryIndex(index);
    const connections = tableSchema(connectionsTableDefinition('connections'));
    this.connectionsTable = new dynamodb.Table(this, 'Connections', {
      partitionKey: connections.partitionKey,
      ...(connections.sortKey ? { sortKey: connections.sortKey } : {}),
      billingMode: dynamodb.BillingMode.PAY_PER_REQUEST,
      timeToLiveAttribute: TTL_ATTRIBUTE,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      // Soft state: leases and subscriptions that clients re-create on reconnect.
      removalPolicy: RemovalPolicy.DESTROY,
    });

    const queueDefaults = {
      enforceSSL: true,
      encryption: sqs.QueueEncryption.SQS_MANAGED,
      retentionPeriod: Duration.days(14),
    };
    this.deadLetterQueue = new sqs.Queue(this, 'DeadLetters', { ...queueDefaults, fifo: true });
    this.inbox = new sqs.Queue(this, 'Inbox', {
      ...queueDefaults,
      fifo: true,
      contentBasedDeduplication: false,
      ...(settings.highThroughputInbox
        ? {
            deduplicationScope: sqs.DeduplicationScope.MESSAGE_GROUP,
            fifoThroughputLimit: sqs.FifoThroughputLimit.PER_MESSAGE_GROUP_ID,
          }
        : {}),
      visibilityTimeout: Duration.seconds(settings.workerTimeout.toSeconds() * 6),
      deadLetterQueue: { queue: this.deadLetterQueue, maxReceiveCount: settings.maxReceiveCount },
    });
    this.timerDeadLetterQueue = new sqs.Queue(this, 'TimerDeadLetters', queueDefaults);
    this.timerQueue = new sqs.Queue(this, 'Timers', {
      ...queueDefaults,
      visibilityTimeout: Duration.minutes(3),
      deadLetterQueue: { queue: this.timerDeadLetterQueue, maxReceiveCount: 10 },
    });

    this.webSocketApi = new apigwv2.WebSocketApi(this, 'WebSocketApi', {
      description: `Baton live queries (${id})`,
    });
    const accessLogs = new logs.LogGroup(this, 'WebSocketAccessLogs', {
      retention: settings.logRetention,
    });
    this.webSocketStage = new apigwv2.WebSocketStage(this, 'WebSocketStage', {
      webSocketApi: this.webSocketApi,
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

    const environment: Record<string, string> = {
      [BATON_ENV.table]: this.table.tableName,
      [BATON_ENV.inboxUrl]: this.inbox.queueUrl,
      [BATON_ENV.timerQueueUrl]: this.timerQueue.queueUrl,
      [BATON_ENV.connectionsTable]: this.connectionsTable.tableName,
      [BATON_ENV.webSocketEndpoint]: this.webSocketStage.callbackUrl,
      [BATON_ENV.outboxShards]: String(settings.outboxShards),
      NODE_OPTIONS: '--enable-source-maps',
    };
    const entries = entriesDir();
    const make = (name: BatonFunctionName, timeout: Duration) => {
      const caps = settings.reservedConcurrency;
      const reserved =
        caps && (name === 'websocket' || name === 'ingress' || name === 'stream')
          ? caps[name]
          : undefined;
      const id = `${name[0]!.toUpperCase()}${name.slice(1)}`;
      const logGroup = new logs.LogGroup(this, `${id}Logs`, { retention: settings.logRetention });
      // A role of its own that writes only its own log group (no AWS managed policy).
      const role = new iam.Role(this, `${id}Role`, {
        assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'),
        description: `The ${name} function of Baton app ${this.node.path}`,
      });
      logGroup.grantWrite(role);
      return new NodejsFunction(this, `${id}Function`, {
        entry: join(entries.dir, `${name}${entries.ext}`),
        role,
        logGroup,
        projectRoot,
        depsLockFilePath: lockFile(projectRoot),
        runtime: lambda.Runtime.NODEJS_24_X,
        architecture: lambda.Architecture.ARM_64,
        memorySize: 1024,
        timeout,
        environment,
        ...(reserved ? { reservedConcurrentExecutions: reserved } : {}),
        bundling: {
          format: OutputFormat.ESM,
          target: 'node24',
          minify: true,
          sourceMap: true,
          externalModules: ['@aws-sdk/*'],
          mainFields: ['module', 'main'],
          // CommonJS dependencies inside an ES module bundle still call require().
          banner:
            "import { createRequire as __batonRequire } from 'node:module'; const require = __batonRequire(import.meta.url);",
          esbuildArgs: { '--alias:baton-app': entry },
          // A synth prints what needs attention, not each bundle's size.
          logLevel: LogLevel.WARNING,
        },
      });
    };
    const functions = {
      worker: make('worker', settings.workerTimeout),
      sweeper: make('sweeper', Duration.minutes(5)),
      relay: make('relay', Duration.seconds(30)),
      ingress: make('ingress', Duration.seconds(30)),
      websocket: make('websocket', Duration.seconds(29)),
      stream: make('stream', Duration.minutes(1)),
      connectionSweeper: make('connectionSweeper', Duration.minutes(5)),
    };
    this.functions = functions;
    functions.sweeper.addEnvironment(
      BATON_ENV.sweepConcurrency,
      String(settings.sweeperConcurrency),
    );
    // What the WebSocket function checks at cold start against the app it bundles.
    functions.websocket.addEnvironment(WEBSOCKET_AUTH_ENV, settings.webSocketAuth);
    for (const [name, value] of settings.webSocketLimits) {
      functions.websocket.addEnvironment(name, String(value));
    }
    // The worker's turn metrics (EMF log lines through Powertools), on unless turned off.
    this.metricsService = props.metrics === false ? undefined : this.node.path;
    if (this.metricsService === undefined)
      functions.worker.addEnvironment(BATON_ENV.metrics, 'off');
    else {
      functions.worker.addEnvironment('POWERTOOLS_METRICS_NAMESPACE', DEFAULT_METRICS_NAMESPACE);
      functions.worker.addEnvironment('POWERTOOLS_SERVICE_NAME', this.metricsService);
    }
    for (const [name, fn] of Object.entries(functions) as [BatonFunctionName, NodejsFunction][]) {
      this.#grant(name, fn);
    }

    functions.worker.addEventSource(
      new SqsEventSource(this.inbox, {
        batchSize: settings.batchSize,
        maxConcurrency: settings.maxConcurrency,
        reportBatchItemFailures: true,
      }),
    );
    functions.relay.addEventSource(
      new SqsEventSource(this.timerQueue, { batchSize: 10, reportBatchItemFailures: true }),
    );
    this.streamFailureQueue = new sqs.Queue(this, 'StreamFailures', queueDefaults);
    functions.stream.addEventSource(
      new DynamoEventSource(this.table, {
        startingPosition: lambda.StartingPosition.LATEST,
        batchSize: 100,
        reportBatchItemFailures: true,
        retryAttempts: 10,
        // A failing record is split off from the good ones, and given up on after an hour
        // (a push that late is worthless; clients re-sync on reconnect) into the queue, where
        // an alarm fires: never dropped unseen.
        bisectBatchOnError: true,
        maxRecordAge: Duration.hours(1),
        onFailure: new SqsDlq(this.streamFailureQueue),
      }),
    );
    const everyMinute = events.Schedule.rate(Duration.minutes(1));
    for (const name of ['sweeper', 'connectionSweeper'] as const) {
      new events.Rule(this, `${name}Schedule`, {
        schedule: everyMinute,
        targets: [new targets.LambdaFunction(functions[name])],
      });
    }

    const integration = new WebSocketLambdaIntegration('Routes', functions.websocket);
    for (const route of ['$connect', '$disconnect', '$default']) {
      this.webSocketApi.addRoute(route, { integration });
    }
    const ingress = ingressEndpoint(
      this,
      functions.ingress,
      settings.ingressAuth,
      settings.throttle,
      settings.logRetention,
    );
    this.ingressUrl = ingress.url;
    this.ingressFunctionUrl = ingress.functionUrl;
    this.ingressApi = ingress.httpApi;
    this.#ingressAuth = settings.ingressAuth;
    this.alarms = {
      ...createAlarms(
        this,
        functions,
        settings.alarmThresholds.inboxAgeSeconds,
        this.timerDeadLetterQueue,
        queueDefaults.retentionPeriod,
      ),
      ...createScaleAlarms(this, functions, settings.alarmThresholds, settings.highThroughputInbox),
    };
    nameAlarmTarget(this, this.alarms);
    this.dashboard = createDashboard(this, functions, this.alarms, this.metricsService);
    operatorOutputs(this, {
      table: this.table.tableName,
      inbox: this.inbox.queueUrl,
      deadLetters: this.deadLetterQueue.queueUrl,
      timers: this.timerQueue.queueUrl,
      timerDeadLetters: this.timerDeadLetterQueue.queueUrl,
      streamFailures: this.streamFailureQueue.queueUrl,
      ingress: this.ingressUrl,
      webSocket: this.webSocketStage.url,
      outboxShards: String(settings.outboxShards),
    });
    this.#acknowledge(settings.webSocketAuth === 'app');
  }

  readonly #ingressAuth: BatonAppProps['ingressAuth'];

  /**
   * The cdk-nag findings this design accepts, each with its reason. The WebSocket routes' missing
   * authorizer is accepted only when the app's own `auth` runs on `$connect`: an anonymous app's
   * finding stays for its owner to see.
   */
  #acknowledge(appAuth: boolean): void {
    if (appAuth) {
      Validations.of(this.webSocketApi).acknowledge({
        id: 'AwsSolutions-APIG4',
        reason:
          'API Gateway takes an authorizer on $connect only; the WebSocket function authorizes ' +
          "each $connect with the app's auth hook (webSocketAuth: 'app', checked when the " +
          'function starts) and refuses it with 401, and $default and $disconnect act only ' +
          'for a connection that was accepted.',
      });
    }
    Validations.of(this.streamFailureQueue).acknowledge({
      id: 'AwsSolutions-SQS3',
      reason:
        'It is a dead-letter queue: the on-failure destination of the stream function’s event ' +
        'source mapping, which cdk-nag does not recognise as one.',
    });
    const stack = Stack.of(this);
    const api = stack.getLogicalId(this.webSocketApi.node.defaultChild as CfnElement);
    const region = Token.isUnresolved(stack.region) ? '<AWS::Region>' : stack.region;
    const account = Token.isUnresolved(stack.account) ? '<AWS::AccountId>' : stack.account;
    const connections = `arn:<AWS::Partition>:execute-api:${region}:${account}:<${api}>/${this.webSocketStage.stageName}/*/@connections/*`;
    for (const name of ['websocket', 'stream', 'connectionSweeper'] as const) {
      Validations.of(this.functions[name].role!).acknowledge({
        id: `AwsSolutions-IAM5[Resource::${connections}]`,
        reason:
          'Pushing to, reading and closing connections of this API and stage: connection ids ' +
          'are made per connection, and the method (POST, GET, DELETE) is the call’s.',
      });
    }
    Validations.of(this.functions.stream.role!).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason:
        'dynamodb:ListStreams, which the stream event source mapping calls, takes no resource; ' +
        'every other stream action is on this table’s stream.',
    });
  }

  /** `wss://…/<stage>`: what a page's `BatonClient` connects to. */
  get webSocketUrl(): string {
    return this.webSocketStage.url;
  }

  /**
   * Lets `grantee` send messages to actors: enqueue into the inbox, claim the idempotency keys
   * of keyed messages (and read those claims) and read outcomes (an item each, or an actor's
   * outcome pages) — the table's key claims and outcomes only, never an actor's record.
   */
  grantSend(grantee: iam.IGrantable): iam.Grant {
    const outcomes = iam.Grant.addToPrincipal({
      grantee,
      actions: ['dynamodb:GetItem', 'dynamodb:Query'],
      resourceArns: [this.table.tableArn],
      conditions: OUTCOMES_ONLY,
    });
    const claims = iam.Grant.addToPrincipal({
      grantee,
      actions: ['dynamodb:GetItem', 'dynamodb:PutItem'],
      resourceArns: [this.table.tableArn],
      conditions: CLAIMS_ONLY,
    });
    return outcomes.combine(claims).combine(this.inbox.grantSendMessages(grantee));
  }

  /**
   * Lets `grantee` run the `baton` CLI's looking commands against this app (`status`,
   * `actors get | list`, `dead-letters list | show`, `timers list`, `outcome`, with `--stack`):
   * reads of the table and its outbox index, the queues' depths, the stack's outputs. Nothing
   * it can change.
   *
   * @example
   * bank.grantReadOnly(new iam.Role(this, 'OnCall', { assumedBy: new iam.AccountRootPrincipal() }));
   */
  grantReadOnly(grantee: iam.IGrantable): iam.Grant {
    return grantReadOnly(this, grantee);
  }

  /**
   * Lets `grantee` run every `baton` CLI command against this app: what `grantReadOnly` allows,
   * and conditional writes of actor records and their items (pause, resume, purge, cancel a
   * timer) and sends to the inbox (redrive, send, ask). Nothing deletes a table or a queue.
   *
   * @example
   * bank.grantOperator(new iam.Role(this, 'Operator', { assumedBy: new iam.AccountRootPrincipal() }));
   */
  grantOperator(grantee: iam.IGrantable): iam.Grant {
    return grantOperator(this, grantee);
  }

  /**
   * Sends every alarm's changes, into ALARM and back to OK, to `actions`: whom to page, and
   * when it is over (a pager's incident resolves with the OK).
   *
   * @example
   * bank.addAlarmActions(new SnsAction(onCallTopic));
   */
  addAlarmActions(...actions: cloudwatch.IAlarmAction[]): void {
    for (const alarm of Object.values(this.alarms)) {
      alarm.addAlarmAction(...actions);
      alarm.addOkAction(...actions);
    }
  }

  /** Lets `grantee` call the HTTP ingress; only with `ingressAuth: 'iam'`. */
  grantIngress(grantee: iam.IGrantable): iam.Grant {
    if (this.#ingressAuth !== undefined && this.#ingressAuth !== 'iam') {
      throw new Error(
        "grantIngress grants IAM callers, but this app's ingress is not behind IAM: set " +
          "ingressAuth: 'iam', or let the authorizer decide who may call",
      );
    }
    return this.functions.ingress.grantInvokeUrl(grantee);
  }

  /** Messages the inbox moved to the dead-letter queue, waiting. */
  metricDeadLetters(options?: cloudwatch.MetricOptions): cloudwatch.Metric {
    return this.deadLetterQueue.metricApproximateNumberOfMessagesVisible(options);
  }

  /** The age of the inbox's oldest message: how far the workers are behind. */
  metricInboxAge(options?: cloudwatch.MetricOptions): cloudwatch.Metric {
    return this.inbox.metricApproximateAgeOfOldestMessage(options);
  }

  /** The IAM statements `BATON_IAM` declares for `part`, on this app's resources. */
  #grant(part: BatonFunctionName, fn: NodejsFunction): void {
    for (const { actions, resources } of BATON_IAM[part]) {
      const arns = resources.flatMap((resource) => this.#arns(resource));
      // `outcomes` and `claims` are the table on a condition, each a statement of its own.
      const named = resources as readonly IamResource[];
      const conditions = named.includes('outcomes')
        ? OUTCOMES_ONLY
        : named.includes('claims')
          ? CLAIMS_ONLY
          : undefined;
      fn.addToRolePolicy(
        new iam.PolicyStatement({ actions: [...actions], resources: arns, conditions }),
      );
    }
  }

  #arns(resource: IamResource): string[] {
    switch (resource) {
      case 'table':
      case 'outcomes':
      case 'claims':
        return [this.table.tableArn];
      case 'outboxIndex':
        return [`${this.table.tableArn}/index/${OUTBOX_INDEX}`];
      case 'inbox':
        return [this.inbox.queueArn];
      case 'timerQueue':
        return [this.timerQueue.queueArn];
      case 'connections':
        return [this.connectionsTable.tableArn];
      case 'tableStream':
        return [this.table.tableStreamArn!];
      case 'webSocketApi':
        return [
          Stack.of(this).formatArn({
            service: 'execute-api',
            resource: this.webSocketApi.apiId,
            resourceName: `${this.webSocketStage.stageName}/*/@connections/*`,
          }),
        ];
    }
  }
}

/** The condition that narrows the table to its idempotency records (`outcomes`). */
const OUTCOMES_ONLY = {
  'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [OUTCOME_LEADING_KEYS] },
};

/** The condition that narrows the table to its key claims (`claims`). */
const CLAIMS_ONLY = {
  'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [CLAIM_LEADING_KEYS] },
};

/** Where the function entries are: beside this module, as sources or as built JavaScript. */
function entriesDir(): { dir: string; ext: string } {
  const here = fileURLToPath(import.meta.url);
  return { dir: join(dirname(here), 'entries'), ext: here.endsWith('.ts') ? '.ts' : '.js' };
}
