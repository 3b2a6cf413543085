import { OUTBOX_INDEX, PUSHES_THROTTLED_LOG } from '@baton/aws';
import { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import { Operation } from 'aws-cdk-lib/aws-dynamodb';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import type { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import { logMetric } from './alarms.ts';
import type { BatonFunctionName } from './appFunctions.ts';
import type { AppParts } from './appParts.ts';
import type { AlarmThresholds } from './BatonAppProps.ts';

/** The operations Baton's functions call on the actor table (a transaction is its own). */
export const TABLE_OPERATIONS = [
  Operation.GET_ITEM,
  Operation.QUERY,
  Operation.PUT_ITEM,
  Operation.UPDATE_ITEM,
  Operation.DELETE_ITEM,
  Operation.BATCH_WRITE_ITEM,
  Operation.TRANSACT_WRITE_ITEMS,
] as const;

/** The functions whose throttles are alarmed on: those with reserved concurrency, and the worker. */
export const THROTTLED_FUNCTIONS = ['worker', 'stream', 'websocket', 'ingress'] as const;

const minute = Duration.minutes(1);

/** What waits while a function is throttled, and where to see it. */
const THROTTLED: Readonly<Record<(typeof THROTTLED_FUNCTIONS)[number], string>> = {
  worker: 'Inbox messages wait (`baton status`: the inbox’s oldest message).',
  stream:
    'Pushes to live queries are late (StreamIteratorAgeAlarm); `baton status` counts those given up on.',
  websocket:
    'Clients’ connects, subscriptions and sends fail and are retried (`baton status` says whether messages wait).',
  ingress: 'HTTP callers get an error and retry (`baton status` says whether messages wait).',
};

/**
 * The alarms on nearing the scale limits `docs/scale.md` names: the inbox's send rate (FIFO's
 * 300 calls/s per action, or the region's quota in high-throughput mode), DynamoDB throttling
 * of the actor table (a partition's 1,000 WCU/s), throttled pushes (API Gateway's account
 * limit), throttled invocations (reserved or account concurrency spent), the stream function's
 * iterator age (pushes late), and the account's concurrent executions near its quota.
 */
export function createScaleAlarms(
  app: AppParts,
  functions: Record<BatonFunctionName, NodejsFunction>,
  thresholds: Required<AlarmThresholds>,
  highThroughputInbox: boolean,
): Record<string, cloudwatch.Alarm> {
  const alarm = (
    id: string,
    metric: cloudwatch.IMetric,
    threshold: number,
    evaluationPeriods: number,
    description: string,
  ) =>
    new cloudwatch.Alarm(app, id, {
      metric,
      threshold,
      evaluationPeriods,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
      alarmDescription: description,
    });
  const perSecond = thresholds.inboxMessagesPerSecond;
  const alarms: Record<string, cloudwatch.Alarm> = {
    inboxSendRate: alarm(
      'InboxSendRateAlarm',
      app.inbox.metricNumberOfMessagesSent({ period: minute, statistic: 'Sum' }),
      perSecond * 60,
      3,
      highThroughputInbox
        ? `The inbox took ${perSecond} messages/s or more for 3 minutes: near the region's quota ` +
            'for a FIFO queue in high-throughput mode (2,400 to 70,000 calls/s per action), past ' +
            'which sends are throttled and messages wait (`baton status`: the inbox). Batch ' +
            'sends, or ask AWS for a higher quota (docs/scale.md).'
        : `The inbox took ${perSecond} messages/s or more for 3 minutes: near a FIFO queue's 300 calls/s ` +
            'per action, past which sends are throttled and messages wait (`baton status`: the ' +
            'inbox). Batch sends, or set highThroughputInbox (docs/scale.md).',
    ),
    tableThrottledRequests: alarm(
      'TableThrottledRequestsAlarm',
      tableThrottledRequests(app),
      thresholds.tableThrottledRequests,
      1,
      'DynamoDB throttled requests to the actor table: a hot actor at its partition’s 1,000 ' +
        'WCU/s, or the table at its account quota. Its messages wait (`baton status`: the ' +
        'inbox’s oldest message); the worker’s log names the actor whose commits fail (`turn ' +
        'failed; its messages will be redelivered`, with the throttling error). Split the ' +
        'actor or shrink its record (docs/scale.md).',
    ),
    tableWriteThrottleEvents: alarm(
      'TableWriteThrottleEventsAlarm',
      tableWriteThrottleEvents(app),
      thresholds.tableWriteThrottleEvents,
      1,
      'DynamoDB throttled writes to the actor table or its outbox index (see ' +
        'WriteKeyRangeThroughputThrottleEvents on the dashboard for a hot partition): turns and ' +
        'drains are retried, and messages wait (`baton status`: the inbox’s oldest message, ' +
        '`baton backlog`: the sends not yet applied). Split a hot actor or shrink its record; raise ' +
        'outboxShards for a hot outbox index key (docs/scale.md).',
    ),
    streamIteratorAge: alarm(
      'StreamIteratorAgeAlarm',
      functions.stream.metric('IteratorAge', { period: minute, statistic: 'Maximum' }),
      thresholds.streamIteratorAgeMs,
      1,
      `The stream function reads table changes ${thresholds.streamIteratorAgeMs / 1000} s or more ` +
        'after they happened: pushes to subscribers are that late (throttled pushes, too few ' +
        'concurrent executions, or slow queries). Past an hour the changes are given up on ' +
        '(StreamFailuresAlarm; `baton status` counts them). Actors’ messages are not at stake.',
    ),
  };
  alarms.pushThrottles = alarm(
    'PushThrottlesAlarm',
    logMetric(app, functions.stream, 'PushesThrottled', PUSHES_THROTTLED_LOG, '$.throttled', 'Sum'),
    thresholds.pushThrottles,
    1,
    'API Gateway refused PostToConnection calls as throttled (the stream function retries each ' +
      'until it lands): pushes reached the account’s limit of 10,000 requests/s, shared by every ' +
      'API of the region, and subscribers get results late. Set push.maxPushesPerSecond, ask ' +
      'for a higher limit, or fan out through a shared channel (docs/scale.md). Actors’ ' +
      'messages are not at stake (`baton status` says whether any wait).',
  );
  for (const name of THROTTLED_FUNCTIONS) {
    const id = `${name[0]!.toUpperCase()}${name.slice(1)}`;
    alarms[`${name}Throttles`] = alarm(
      `${id}ThrottlesAlarm`,
      functions[name].metricThrottles({ period: Duration.minutes(5), statistic: 'Sum' }),
      thresholds.functionThrottles,
      1,
      `Lambda throttled the ${name} function: its reserved concurrency or the account's ` +
        `concurrency is spent. ${THROTTLED[name]} Raise reservedConcurrency or the account quota.`,
    );
  }
  if (thresholds.accountConcurrentExecutions !== false) {
    alarms.accountConcurrency = alarm(
      'AccountConcurrencyAlarm',
      lambda.Function.metricAllConcurrentExecutions({ period: minute, statistic: 'Maximum' }),
      thresholds.accountConcurrentExecutions,
      3,
      `The account ran ${thresholds.accountConcurrentExecutions} or more concurrent executions ` +
        'for 3 minutes: at its quota Lambda throttles every function, pushes and WebSocket ' +
        'routes included (`baton status`: messages waiting). Ask for a higher quota or lower ' +
        'maxConcurrency.',
    );
  }
  return alarms;
}

/** `ThrottledRequests` of the actor table, summed over the operations Baton calls on it. */
function tableThrottledRequests(app: AppParts): cloudwatch.IMetric {
  const metrics = Object.fromEntries(
    TABLE_OPERATIONS.map((operation, i) => [
      `op${i}`,
      app.table.metricThrottledRequestsForOperation(operation, {
        period: minute,
        statistic: 'Sum',
      }),
    ]),
  );
  return sum(metrics, 'Throttled requests (all operations)');
}

/** `WriteThrottleEvents` of the actor table and of its outbox index, summed. */
function tableWriteThrottleEvents(app: AppParts): cloudwatch.IMetric {
  return sum(
    {
      table: app.table.metric('WriteThrottleEvents', { period: minute, statistic: 'Sum' }),
      index: app.table.metric('WriteThrottleEvents', {
        period: minute,
        statistic: 'Sum',
        dimensionsMap: { TableName: app.table.tableName, GlobalSecondaryIndexName: OUTBOX_INDEX },
      }),
    },
    'Write throttle events (table and outbox index)',
  );
}

/**
 * The sum of `metrics` per period. `SUM([...])` adds what each series has: throttle metrics are
 * published only while throttling happens, and `a + b` would be empty whenever one is.
 */
function sum(metrics: Record<string, cloudwatch.IMetric>, label: string): cloudwatch.IMetric {
  return new cloudwatch.MathExpression({
    expression: `SUM([${Object.keys(metrics).join(', ')}])`,
    usingMetrics: metrics,
    label,
    period: minute,
  });
}

/**
 * The dashboard's rows for the scale limits: the table's throttling (with the partition-level
 * `WriteKeyRangeThroughputThrottleEvents` that names a hot actor's partition), the functions'
 * throttles, the inbox's send rate, the stream's iterator age and the account's concurrency.
 */
export function scaleWidgets(
  app: AppParts,
  functions: Record<BatonFunctionName, NodejsFunction>,
  alarms: Readonly<Record<string, cloudwatch.Alarm>>,
): cloudwatch.IWidget[][] {
  const graph = (title: string, alarm: cloudwatch.Alarm | undefined, more: cloudwatch.IMetric[]) =>
    new cloudwatch.GraphWidget({
      title,
      left: [...(alarm ? [alarm.metric] : []), ...more],
      leftAnnotations: alarm ? [alarm.toAnnotation()] : [],
      width: 12,
      height: 6,
    });
  const sumPerMinute = { period: minute, statistic: 'Sum' };
  return [
    [
      graph('Table throttling', alarms.tableThrottledRequests, [
        ...(alarms.tableWriteThrottleEvents ? [alarms.tableWriteThrottleEvents.metric] : []),
        app.table.metric('WriteKeyRangeThroughputThrottleEvents', sumPerMinute),
        app.table.metric('ReadThrottleEvents', sumPerMinute),
      ]),
      graph(
        'Function throttles',
        undefined,
        THROTTLED_FUNCTIONS.map((name) =>
          functions[name].metricThrottles({ period: Duration.minutes(5), statistic: 'Sum' }),
        ),
      ),
    ],
    [
      graph('Inbox messages sent (per minute)', alarms.inboxSendRate, []),
      graph('Stream iterator age (ms)', alarms.streamIteratorAge, []),
    ],
    [
      graph('Throttled pushes (PostToConnection, per 5 minutes)', alarms.pushThrottles, []),
      graph('Concurrent executions (account, worker)', alarms.accountConcurrency, [
        ...(alarms.accountConcurrency
          ? []
          : [
              lambda.Function.metricAllConcurrentExecutions({
                period: minute,
                statistic: 'Maximum',
              }),
            ]),
        functions.worker.metric('ConcurrentExecutions', { period: minute, statistic: 'Maximum' }),
      ]),
    ],
  ];
}
