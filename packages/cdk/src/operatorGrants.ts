import { OUTBOX_INDEX } from '@baton/aws';
import { Stack, Validations } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import { Construct } from 'constructs';
import type { AppParts } from './appParts.ts';

/**
 * What the `baton` CLI reads: the table (records, dead letters, timers, outcomes, and a scan
 * for `actors list` and for `status`'s paused actors and workflow instances, the records'
 * pauses and states; due timers and a workflow's history pages are read in batches) and its
 * outbox index (dead letters, due timers, undrained sends), the depths of the inbox, the timer
 * queue, their dead-letter queues and the stream's failure queue, the stack's outputs and
 * resources (`--stack`; a queue's URL), and the queues' oldest message ages (CloudWatch's
 * `GetMetricData`, which takes no resource: a read of metrics only). And what the runbook
 * (docs/operations.md) reads besides: the app's functions' logs, line by line and through Logs
 * Insights (`GetQueryResults` takes no resource either).
 */
export function grantReadOnly(app: AppParts, grantee: iam.IGrantable): iam.Grant {
  const stack = Stack.of(app);
  const table = iam.Grant.addToPrincipal({
    grantee,
    actions: ['dynamodb:GetItem', 'dynamodb:BatchGetItem', 'dynamodb:Query', 'dynamodb:Scan'],
    resourceArns: [app.table.tableArn, `${app.table.tableArn}/index/${OUTBOX_INDEX}`],
  });
  const queues = iam.Grant.addToPrincipal({
    grantee,
    // The second tells a dead-letter queue passed as the inbox (see the CLI's checkInboxQueue).
    actions: ['sqs:GetQueueAttributes', 'sqs:ListDeadLetterSourceQueues'],
    resourceArns: [
      app.inbox.queueArn,
      app.deadLetterQueue.queueArn,
      app.timerQueue.queueArn,
      app.timerDeadLetterQueue.queueArn,
      app.streamFailureQueue.queueArn,
    ],
  });
  // `queue-dead-letters list` peeks: it receives the dead letters and puts them straight back.
  const peek = iam.Grant.addToPrincipal({
    grantee,
    actions: ['sqs:ReceiveMessage', 'sqs:ChangeMessageVisibility'],
    resourceArns: [app.deadLetterQueue.queueArn],
  });
  const metrics = iam.Grant.addToPrincipal({
    grantee,
    actions: ['cloudwatch:GetMetricData', 'logs:GetQueryResults'],
    resourceArns: ['*'],
  });
  const logGroups = Object.values(app.functions).map((fn) => fn.logGroup.logGroupArn);
  const logReads = iam.Grant.addToPrincipal({
    grantee,
    actions: [
      'logs:DescribeLogStreams',
      'logs:GetLogEvents',
      'logs:FilterLogEvents',
      'logs:StartQuery',
    ],
    resourceArns: logGroups,
  });
  if (Construct.isConstruct(grantee)) {
    Validations.of(grantee).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason:
        'cloudwatch:GetMetricData and logs:GetQueryResults take no resource: `baton status` ' +
        'reads the queues’ ApproximateAgeOfOldestMessage with the first, a read of metrics ' +
        'only; the second reads the results of a Logs Insights query the grantee started on ' +
        'the app’s log groups.',
    });
  }
  const outputs = iam.Grant.addToPrincipal({
    grantee,
    actions: ['cloudformation:DescribeStacks', 'cloudformation:DescribeStackResources'],
    // The stack's own ARN, its id included: no wildcard for another stack of the same name.
    resourceArns: [stack.stackId],
  });
  return table.combine(queues).combine(peek).combine(metrics).combine(logReads).combine(outputs);
}

/**
 * What the CLI's operator does besides reading: commits on actor records (pause, resume, purge,
 * cancel a timer: a conditional write of the record and its items, in one transaction), notes
 * beside a message what it did to it (an end, a redrive: an `UpdateItem`), sends
 * to the inbox (redrive, send, ask, the wake-up of a pause or resume), and deletes from the
 * inbox's dead-letter queue what `queue-dead-letters redrive` moved back. It may purge the two
 * queues whose messages are notices only, as the runbook says once their cause is fixed: the
 * timer queue's dead letters (their timers stay stored) and the stream's failures (descriptions
 * of table changes). No delete of a table or queue, no purge of the inbox or its dead-letter
 * queue, no change of the app's functions.
 */
export function grantOperator(app: AppParts, grantee: iam.IGrantable): iam.Grant {
  const writes = iam.Grant.addToPrincipal({
    grantee,
    actions: [
      'dynamodb:PutItem',
      'dynamodb:UpdateItem',
      'dynamodb:DeleteItem',
      'dynamodb:ConditionCheckItem',
    ],
    resourceArns: [app.table.tableArn],
  });
  const moves = iam.Grant.addToPrincipal({
    grantee,
    actions: ['sqs:DeleteMessage'],
    resourceArns: [app.deadLetterQueue.queueArn],
  });
  const purges = iam.Grant.addToPrincipal({
    grantee,
    actions: ['sqs:PurgeQueue'],
    resourceArns: [app.timerDeadLetterQueue.queueArn, app.streamFailureQueue.queueArn],
  });
  return grantReadOnly(app, grantee)
    .combine(writes)
    .combine(moves)
    .combine(purges)
    .combine(app.inbox.grantSendMessages(grantee));
}
