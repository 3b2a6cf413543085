/**
 * The inbox's own dead-letter queue: what SQS moved there after `maxReceiveCount` receives (a
 * message a worker died on again and again, an effect retried while its target stayed down).
 * `list` peeks at its messages; `redrive` moves them back into the inbox, where the engine
 * applies each at most once: a message applied before it was dead-lettered is skipped as a copy,
 * one too old to apply safely is kept as the engine's own dead letter (`baton dead-letters`).
 */
import {
  ChangeMessageVisibilityBatchCommand,
  DeleteMessageBatchCommand,
  type Message,
  type MessageAttributeValue,
  ReceiveMessageCommand,
  SendMessageBatchCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import { BatonError, ErrorCode } from '@baton/core';
import { decodeEnvelope } from '@baton/core/adapter';
import { duration, table } from './format.ts';
import type { OpsContext } from './OpsContext.ts';

/** Messages `list` shows unless `--limit` says otherwise. */
const LIST_DEFAULT = 20;
/** The most `list` shows. */
const LIST_MAX = 1000;
/** How long a message `redrive` took stays hidden from another reader while it moves. */
const MOVE_VISIBILITY_S = 60;

/** What `list` shows of one message. */
type Peeked = {
  readonly actor: string;
  readonly name: string;
  readonly from: string;
  readonly messageId: string;
  /** How long ago it was first sent to the inbox. */
  readonly age: string;
  readonly receives: number;
};

/** `baton queue-dead-letters list [--limit n]`: the messages in the inbox's dead-letter queue. */
export async function queueDeadLettersList(ctx: OpsContext): Promise<void> {
  const limit = limitArg(ctx.values.limit);
  const { sqs, url } = await deadLetterQueue(ctx);
  const peeked: Peeked[] = [];
  const receipts: Array<{ Id: string; ReceiptHandle: string }> = [];
  try {
    // Each receive hides what it took for a few seconds: all are put back at the end.
    while (peeked.length < limit) {
      const taken = await receive(sqs, url, Math.min(10, limit - peeked.length), 5);
      if (taken.length === 0) break;
      for (const message of taken) {
        peeked.push(describe(message, ctx.io.now()));
        receipts.push({ Id: String(receipts.length), ReceiptHandle: message.ReceiptHandle ?? '' });
      }
    }
  } finally {
    for (let i = 0; i < receipts.length; i += 10) {
      await sqs.send(
        new ChangeMessageVisibilityBatchCommand({
          QueueUrl: url,
          Entries: receipts.slice(i, i + 10).map((r) => ({ ...r, VisibilityTimeout: 0 })),
        }),
      );
    }
  }
  ctx.print({ messages: peeked }, () =>
    peeked.length === 0
      ? "the inbox's dead-letter queue is empty"
      : `${table(peeked, ['actor', 'name', 'from', 'messageId', 'age', 'receives'])}\n` +
        'redrive them into the inbox with: baton queue-dead-letters redrive',
  );
}

/**
 * `baton queue-dead-letters redrive [--dry-run]`: moves every message of the inbox's dead-letter
 * queue back into the inbox, in order within each actor's group. Each is sent again under a
 * deduplication id of its own (`redrive-<its message id>`), so the inbox does not drop it as a
 * copy of the message it was — and a redrive stopped between a send and its delete, run again,
 * sends the same id, which the inbox drops within its five minutes (the engine after that).
 */
export async function queueDeadLettersRedrive(ctx: OpsContext): Promise<void> {
  if (ctx.values['dry-run']) return queueDeadLettersList(ctx);
  const { sqs, url, inbox } = await deadLetterQueue(ctx);
  await ctx.confirm("redrive every message of the inbox's dead-letter queue into the inbox?");
  let moved = 0;
  for (;;) {
    const taken = await receive(sqs, url, 10, MOVE_VISIBILITY_S);
    if (taken.length === 0) break;
    await moveBack(sqs, inbox, taken);
    await sqs.send(
      new DeleteMessageBatchCommand({
        QueueUrl: url,
        Entries: taken.map((m, i) => ({ Id: String(i), ReceiptHandle: m.ReceiptHandle ?? '' })),
      }),
    );
    moved += taken.length;
  }
  await ctx.audit('queue-dead-letters redrive', { moved });
  ctx.print({ redriven: moved }, () =>
    moved === 0
      ? "the inbox's dead-letter queue is empty: nothing to redrive"
      : `redriven ${moved} message(s) into the inbox: each is applied at most once, in its actor's turn`,
  );
}

/** The dead-letter queue's URL (refused when the target names none) and the inbox's. */
async function deadLetterQueue(ctx: OpsContext) {
  const target = await ctx.target();
  const url = target.names.deadLetterQueueUrl;
  if (!url) {
    throw new BatonError(
      ErrorCode.INVALID_ARGUMENT,
      'no dead-letter queue to read: pass --dead-letter-queue-url <url> (or --stack <name>, whose outputs name it)',
    );
  }
  return { sqs: target.sqs, url, inbox: target.names.inboxUrl };
}

async function receive(
  sqs: SQSClient,
  url: string,
  max: number,
  visibilitySeconds: number,
): Promise<Message[]> {
  const { Messages = [] } = await sqs.send(
    new ReceiveMessageCommand({
      QueueUrl: url,
      MaxNumberOfMessages: max,
      VisibilityTimeout: visibilitySeconds,
      MessageSystemAttributeNames: ['All'],
      MessageAttributeNames: ['All'],
    }),
  );
  return Messages;
}

/**
 * Sends `messages` to the inbox as they were (body, group, Baton's attributes), in their order,
 * each under the deduplication id `redrive-<its message id>`.
 */
async function moveBack(sqs: SQSClient, inbox: string, messages: readonly Message[]) {
  const { Failed = [] } = await sqs.send(
    new SendMessageBatchCommand({
      QueueUrl: inbox,
      Entries: messages.map((m, i) => ({
        Id: String(i),
        MessageBody: m.Body ?? '',
        MessageGroupId: m.Attributes?.MessageGroupId,
        MessageDeduplicationId: `redrive-${m.MessageId}`,
        ...(m.MessageAttributes ? { MessageAttributes: attributesOf(m) } : {}),
      })),
    }),
  );
  if (Failed.length > 0) {
    const first = Failed[0]!;
    throw new BatonError(
      ErrorCode.UNAVAILABLE,
      `the inbox refused ${Failed.length} of ${messages.length} redriven messages (first: ${first.Code}: ${first.Message}); none was deleted from the dead-letter queue: run the redrive again`,
    );
  }
}

/** A received message's attributes as a send takes them (only what they hold: strings, bytes). */
function attributesOf(message: Message): Record<string, MessageAttributeValue> {
  const out: Record<string, MessageAttributeValue> = {};
  for (const [name, value] of Object.entries(message.MessageAttributes ?? {})) {
    out[name] = {
      DataType: value.DataType,
      ...(value.StringValue === undefined ? {} : { StringValue: value.StringValue }),
      ...(value.BinaryValue === undefined ? {} : { BinaryValue: value.BinaryValue }),
    };
  }
  return out;
}

function describe(message: Message, now: number): Peeked {
  const envelope = decodeEnvelope(message.Body ?? '');
  const sent = Number(message.Attributes?.SentTimestamp ?? Number.NaN);
  return {
    actor: envelope?.to ?? message.Attributes?.MessageGroupId ?? '?',
    name: envelope?.name ?? '(not a Baton envelope)',
    from: envelope?.from ?? '?',
    messageId: envelope?.id ?? message.MessageId ?? '?',
    age: Number.isFinite(sent) ? duration(now - sent) : 'unknown',
    receives: Number(message.Attributes?.ApproximateReceiveCount ?? 0),
  };
}

function limitArg(value: string | undefined): number {
  if (value === undefined) return LIST_DEFAULT;
  const limit = Number(value);
  if (!Number.isInteger(limit) || limit < 1 || limit > LIST_MAX) {
    throw new BatonError(
      ErrorCode.INVALID_ARGUMENT,
      `--limit takes a whole number from 1 to ${LIST_MAX}, not "${value}"`,
    );
  }
  return limit;
}
