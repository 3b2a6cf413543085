import { STALE_OUTBOX_LOG } from '@baton/core/engine';
import { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import type { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import * as logs from 'aws-cdk-lib/aws-logs';
import type { BatonApp, BatonFunctionName } from './BatonApp.ts';

/**
 * The app's alarms, by what they watch: a dead letter, the inbox's oldest message, outbox items
 * older than a day (the sweeper logs one line each), and every function's errors.
 */
export function createAlarms(
  app: BatonApp,
  functions: Record<BatonFunctionName, NodejsFunction>,
): Record<string, cloudwatch.Alarm> {
  const alarm = (id: string, metric: cloudwatch.IMetric, threshold: number, description: string) =>
    new cloudwatch.Alarm(app, id, {
      metric,
      threshold,
      evaluationPeriods: 1,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
      alarmDescription: description,
    });
  const alarms: Record<string, cloudwatch.Alarm> = {
    deadLetters: alarm(
      'DeadLettersAlarm',
      app.metricDeadLetters({ period: Duration.minutes(1), statistic: 'Maximum' }),
      1,
      'A message left the inbox for the dead-letter queue: a worker died on it repeatedly.',
    ),
    inboxAge: alarm(
      'InboxAgeAlarm',
      app.metricInboxAge({ period: Duration.minutes(1), statistic: 'Maximum' }),
      300,
      'The oldest inbox message waited 5 minutes or more: workers are behind or failing.',
    ),
    staleOutbox: alarm(
      'StaleOutboxAlarm',
      staleOutboxMetric(app, functions.sweeper),
      1,
      'The sweeper found outbox entries older than a day: their drains keep failing.',
    ),
  };
  for (const [name, fn] of Object.entries(functions)) {
    alarms[`${name}Errors`] = alarm(
      `${name}ErrorsAlarm`,
      fn.metricErrors({ period: Duration.minutes(5), statistic: 'Sum' }),
      1,
      `The ${name} function failed.`,
    );
  }
  return alarms;
}

/** Counts the sweeper's log entries about outbox items older than a day. */
function staleOutboxMetric(app: BatonApp, sweeper: NodejsFunction): cloudwatch.IMetric {
  const filter = new logs.MetricFilter(app, 'StaleOutboxFilter', {
    logGroup: sweeper.logGroup,
    metricNamespace: 'Baton',
    metricName: `StaleOutbox-${app.node.addr}`,
    filterPattern: logs.FilterPattern.stringValue('$.message', '=', STALE_OUTBOX_LOG),
    metricValue: '1',
  });
  return filter.metric({ period: Duration.minutes(5), statistic: 'Sum' });
}
