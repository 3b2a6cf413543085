/**
 * What the alarms, the dashboard and the operator grants read of a `BatonApp`: its table, its
 * queues, its functions and two of its metrics. They take this, not the construct that makes
 * them, so that they depend on what they read and the construct on them, not both ways.
 */
import type * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import type { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import type { BatonFunctionName } from './appFunctions.ts';

/** The parts of a deployed app, as `BatonApp` holds them (see its fields). */
export interface AppParts extends Construct {
  readonly table: dynamodb.Table;
  readonly inbox: sqs.Queue;
  readonly deadLetterQueue: sqs.Queue;
  readonly timerQueue: sqs.Queue;
  readonly timerDeadLetterQueue: sqs.Queue;
  readonly streamFailureQueue: sqs.Queue;
  readonly functions: Readonly<Record<BatonFunctionName, NodejsFunction>>;
  metricDeadLetters(options?: cloudwatch.MetricOptions): cloudwatch.Metric;
  metricInboxAge(options?: cloudwatch.MetricOptions): cloudwatch.Metric;
}
