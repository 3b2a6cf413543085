import { resolve } from 'node:path';
import { BATON_ENV } from '@baton/aws';
import { Stack } from 'aws-cdk-lib';
import type * as apigwv2 from 'aws-cdk-lib/aws-apigatewayv2';
import type * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import type * as iam from 'aws-cdk-lib/aws-iam';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { createAlarms, nameAlarmTarget } from './alarms.ts';
import { addSettingsEnvironment, type BatonFunctionName, createFunctions } from './appFunctions.ts';
import { appHasAuth } from './appHasAuth.ts';
import type { AppParts } from './appParts.ts';
import { createQueues, queueDefaults } from './appQueues.ts';
import { createTables } from './appTables.ts';
import type { BatonAppProps } from './BatonAppProps.ts';
import { createDashboard } from './dashboard.ts';
import { grantPart, statementsFor } from './functionGrants.ts';
import { addTriggers } from './functionTriggers.ts';
import { ingressEndpoint } from './ingressEndpoint.ts';
import { acknowledgeNagFindings } from './nagAcknowledgements.ts';
import { grantOperator, grantReadOnly } from './operatorGrants.ts';
import { operatorOutputs } from './operatorOutputs.ts';
import { findProjectRoot } from './projectRoot.ts';
import { NO_AUTH } from './requireConnectAuth.ts';
import { createScaleAlarms } from './scaleAlarms.ts';
import { validateProps } from './validateProps.ts';
import { addWebSocketRoutes, createWebSocketApi } from './webSocketApi.ts';

export type { BatonFunctionName } from './appFunctions.ts';

/**
 * A Baton app on AWS: the actor table, the FIFO inbox with its dead-letter queue, the timer
 * queue, the Lambda functions of the turn pipeline (worker, sweeper, timer relay, HTTP ingress)
 * and of live queries (WebSocket routes, stream, connection sweeper), the WebSocket API,
 * least-privilege IAM read from `@baton/aws`'s declared actions, and alarms.
 *
 * It refuses to deploy an app anyone may call unless told to (`allowAnonymous`): the WebSocket
 * is protected by the app's own `auth` (`webSocketAuth: 'app'`), the HTTP ingress by IAM or an
 * authorizer (`ingressAuth`). Both doors' functions have their concurrency capped, and their
 * API Gateway stages are throttled (a function URL, `ingressAuth: 'iam'` or `'none'`, has no
 * stage: its cap is the function's reserved concurrency).
 *
 * @example
 * const bank = new BatonApp(this, 'Bank', { entry: 'src/app.ts', webSocketAuth: 'app' });
 * new CfnOutput(this, 'WebSocketUrl', { value: bank.webSocketUrl });
 * bank.grantSend(myOtherFunction);
 */
export class BatonApp extends Construct implements AppParts {
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
    // The entry's source is read only when this synth bundles the functions, as they read it.
    const settings = validateProps(props, { readEntry: Stack.of(this).bundlingRequired });
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

    const tables = createTables(this, props.removalPolicy, settings.contributorInsights);
    this.table = tables.table;
    this.connectionsTable = tables.connectionsTable;
    const defaults = queueDefaults();
    const queues = createQueues(this, settings, defaults);
    this.deadLetterQueue = queues.deadLetterQueue;
    this.inbox = queues.inbox;
    this.timerDeadLetterQueue = queues.timerDeadLetterQueue;
    this.timerQueue = queues.timerQueue;
    const webSocket = createWebSocketApi(this, id, settings);
    this.webSocketApi = webSocket.api;
    this.webSocketStage = webSocket.stage;

    const environment: Record<string, string> = {
      [BATON_ENV.table]: this.table.tableName,
      [BATON_ENV.inboxUrl]: this.inbox.queueUrl,
      [BATON_ENV.timerQueueUrl]: this.timerQueue.queueUrl,
      [BATON_ENV.connectionsTable]: this.connectionsTable.tableName,
      [BATON_ENV.webSocketEndpoint]: this.webSocketStage.callbackUrl,
      [BATON_ENV.outboxShards]: String(settings.outboxShards),
      NODE_OPTIONS: '--enable-source-maps',
    };
    const functions = createFunctions(this, settings, { entry, projectRoot, environment });
    this.functions = functions;
    this.metricsService = props.metrics === false ? undefined : this.node.path;
    addSettingsEnvironment(functions, settings, this.metricsService);
    for (const [name, fn] of Object.entries(functions) as [BatonFunctionName, NodejsFunction][]) {
      for (const statement of statementsFor(this, name)) fn.addToRolePolicy(statement);
    }
    this.streamFailureQueue = addTriggers(this, functions, this, settings, defaults);

    addWebSocketRoutes(this.webSocketApi, functions.websocket);
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
        defaults.retentionPeriod,
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
    acknowledgeNagFindings(this, settings.webSocketAuth === 'app');
  }

  readonly #ingressAuth: BatonAppProps['ingressAuth'];

  /** `wss://…/<stage>`: what a page's `BatonClient` connects to. */
  get webSocketUrl(): string {
    return this.webSocketStage.url;
  }

  /**
   * Lets `grantee` do what a `Client` does, as the ingress does: send messages to actors
   * (enqueue into the inbox, claim the idempotency keys of keyed messages and read those
   * claims), read outcomes (an item each, or an actor's outcome pages), and read workflow
   * instances' records (`workflowStatus`, a callback token's check, the door's refusal of a
   * start or a signal the instance would refuse). The table's outcomes, key
   * claims and `A#wf-*` records only, never another actor's record.
   */
  grantSend(grantee: iam.IGrantable): iam.Grant {
    return grantPart(this, 'ingress', grantee);
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
}
