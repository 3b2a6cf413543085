/**
 * The app's queues: the FIFO inbox with its dead-letter queue, the timer queue with its own, and
 * the settings every queue of the app takes (the stream's failure queue's too).
 */
import { MAX_MESSAGE_BYTES } from '@baton/core';
import { Duration } from 'aws-cdk-lib';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import type { BatonAppSettings } from './validateProps.ts';

/**
 * What every queue of the app takes: TLS only, SQS-managed encryption, 14 days' retention, and
 * messages up to SQS's most (1 MiB), which Baton's adapters check against. SQS's default is 256
 * KiB: a drain of a committed send over it would be refused on every try.
 */
export function queueDefaults() {
  return {
    enforceSSL: true,
    encryption: sqs.QueueEncryption.SQS_MANAGED,
    retentionPeriod: Duration.days(14),
    maxMessageSizeBytes: MAX_MESSAGE_BYTES,
  };
}

export interface AppQueues {
  readonly deadLetterQueue: sqs.Queue;
  readonly inbox: sqs.Queue;
  readonly timerDeadLetterQueue: sqs.Queue;
  readonly timerQueue: sqs.Queue;
}

/** The inbox and the timer queue, each with its dead-letter queue, on `defaults`. */
export function createQueues(
  scope: Construct,
  settings: BatonAppSettings,
  defaults: ReturnType<typeof queueDefaults>,
): AppQueues {
  const deadLetterQueue = new sqs.Queue(scope, 'DeadLetters', { ...defaults, fifo: true });
  const inbox = new sqs.Queue(scope, 'Inbox', {
    ...defaults,
    fifo: true,
    contentBasedDeduplication: false,
    ...(settings.highThroughputInbox
      ? {
          deduplicationScope: sqs.DeduplicationScope.MESSAGE_GROUP,
          fifoThroughputLimit: sqs.FifoThroughputLimit.PER_MESSAGE_GROUP_ID,
        }
      : {}),
    visibilityTimeout: Duration.seconds(settings.workerTimeout.toSeconds() * 6),
    deadLetterQueue: { queue: deadLetterQueue, maxReceiveCount: settings.maxReceiveCount },
  });
  const timerDeadLetterQueue = new sqs.Queue(scope, 'TimerDeadLetters', defaults);
  const timerQueue = new sqs.Queue(scope, 'Timers', {
    ...defaults,
    visibilityTimeout: Duration.minutes(3),
    deadLetterQueue: { queue: timerDeadLetterQueue, maxReceiveCount: 10 },
  });
  return { deadLetterQueue, inbox, timerDeadLetterQueue, timerQueue };
}
