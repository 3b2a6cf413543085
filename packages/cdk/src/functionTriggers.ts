/**
 * What invokes each function: the inbox the worker, the timer queue the relay, the table's
 * stream the stream function (with a queue for what it gives up on), and a schedule every minute
 * the two sweepers.
 */
import { Duration } from 'aws-cdk-lib';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { DynamoEventSource, SqsDlq, SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import type { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import type { BatonFunctionName } from './appFunctions.ts';
import type { queueDefaults } from './appQueues.ts';
import type { BatonAppSettings } from './validateProps.ts';

/** What the triggers read from. */
export interface TriggerSources {
  readonly table: dynamodb.Table;
  readonly inbox: sqs.Queue;
  readonly timerQueue: sqs.Queue;
}

/** Connects every function to what invokes it; returns the stream's failure queue. */
export function addTriggers(
  scope: Construct,
  functions: Record<BatonFunctionName, NodejsFunction>,
  { table, inbox, timerQueue }: TriggerSources,
  settings: BatonAppSettings,
  defaults: ReturnType<typeof queueDefaults>,
): sqs.Queue {
  functions.worker.addEventSource(
    new SqsEventSource(inbox, {
      batchSize: settings.batchSize,
      maxConcurrency: settings.maxConcurrency,
      reportBatchItemFailures: true,
    }),
  );
  functions.relay.addEventSource(
    new SqsEventSource(timerQueue, { batchSize: 10, reportBatchItemFailures: true }),
  );
  const streamFailureQueue = new sqs.Queue(scope, 'StreamFailures', defaults);
  functions.stream.addEventSource(
    new DynamoEventSource(table, {
      startingPosition: lambda.StartingPosition.LATEST,
      batchSize: 100,
      reportBatchItemFailures: true,
      retryAttempts: 10,
      // A failing record is split off from the good ones, and given up on after an hour
      // (a push that late is worthless; clients re-sync on reconnect) into the queue, where
      // an alarm fires: never dropped unseen.
      bisectBatchOnError: true,
      maxRecordAge: Duration.hours(1),
      onFailure: new SqsDlq(streamFailureQueue),
    }),
  );
  const everyMinute = events.Schedule.rate(Duration.minutes(1));
  for (const name of ['sweeper', 'connectionSweeper'] as const) {
    new events.Rule(scope, `${name}Schedule`, {
      schedule: everyMinute,
      targets: [new targets.LambdaFunction(functions[name])],
    });
  }
  return streamFailureQueue;
}
