import { DEFAULT_METRICS_NAMESPACE } from '@baton/aws';
import { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import type { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import type { BatonFunctionName } from './appFunctions.ts';
import type { AppParts } from './appParts.ts';
import { scaleWidgets } from './scaleAlarms.ts';

/**
 * One CloudWatch dashboard for the app: the alarms' states, the inbox (depth, in flight, age of
 * its oldest message), dead letters (the queue's; the engine's new ones and those it keeps), the
 * sweeper's lag, and each function's errors and the worker's duration — what `baton status`
 * says, over time — the scale limits (throttling, the inbox's send rate, the stream's iterator
 * age, concurrency) and, with the worker's turn metrics on (`metricsService`), messages by
 * outcome and turn durations.
 */
export function createDashboard(
  app: AppParts,
  functions: Record<BatonFunctionName, NodejsFunction>,
  alarms: Readonly<Record<string, cloudwatch.Alarm>>,
  metricsService: string | undefined,
): cloudwatch.Dashboard {
  const minute = { period: Duration.minutes(1) };
  const graph = (title: string, left: cloudwatch.IMetric[]) =>
    new cloudwatch.GraphWidget({ title, left, width: 12, height: 6 });
  return new cloudwatch.Dashboard(app, 'Dashboard', {
    widgets: [
      [
        new cloudwatch.AlarmStatusWidget({
          title: 'Alarms',
          alarms: Object.values(alarms),
          width: 24,
          height: 4,
        }),
      ],
      [
        graph('Inbox', [
          app.inbox.metricApproximateNumberOfMessagesVisible(minute),
          app.inbox.metricApproximateNumberOfMessagesNotVisible(minute),
        ]),
        graph('Oldest inbox message (s)', [app.metricInboxAge(minute)]),
      ],
      [
        graph('Dead letters', [
          app.metricDeadLetters(minute),
          ...(alarms.engineDeadLetters ? [alarms.engineDeadLetters.metric] : []),
          ...(alarms.keptDeadLetters ? [alarms.keptDeadLetters.metric] : []),
        ]),
        graph('Sweeper lag (ms)', alarms.sweeperLag ? [alarms.sweeperLag.metric] : []),
      ],
      [
        graph(
          'Function errors',
          Object.values(functions).map((fn) => fn.metricErrors({ period: Duration.minutes(5) })),
        ),
        graph('Worker duration (ms)', [
          functions.worker.metricDuration({ period: Duration.minutes(5), statistic: 'p99' }),
          functions.worker.metricDuration({ period: Duration.minutes(5), statistic: 'Average' }),
        ]),
      ],
      ...scaleWidgets(app, functions, alarms),
      ...(metricsService === undefined ? [] : [turnWidgets(metricsService, graph)]),
    ],
  });
}

/** The worker's turn metrics (EMF, namespace `Baton`, dimension `service`): outcomes and cost. */
function turnWidgets(
  service: string,
  graph: (title: string, left: cloudwatch.IMetric[]) => cloudwatch.GraphWidget,
): cloudwatch.GraphWidget[] {
  const turn = (metricName: string, statistic: string) =>
    new cloudwatch.Metric({
      namespace: DEFAULT_METRICS_NAMESPACE,
      metricName,
      dimensionsMap: { service },
      statistic,
      period: Duration.minutes(1),
    });
  return [
    graph(
      'Messages by outcome',
      [
        'MessagesApplied',
        'MessagesRejected',
        'MessagesStateTooLarge',
        'MessagesDeadLettered',
        'MessagesParked',
        'MessagesRetried',
        'VersionConflicts',
      ].map((name) => turn(name, 'Sum')),
    ),
    graph('Turn duration (ms)', [turn('TurnDuration', 'p99'), turn('TurnDuration', 'Average')]),
  ];
}
