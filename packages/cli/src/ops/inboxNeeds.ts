/**
 * Which operating commands need the app's inbox queue besides its table: those that send to it
 * (an actor's wake-up, a redrive, a message, a workflow's action). Every other command reads the
 * table alone, and `status` and `backlog`, which read the inbox's depth too, leave it out when
 * it is not named, saying so. Given the table alone (`--table` without `--queue-url`), a command
 * that needs the inbox is refused before it reads or asks anything; its `--dry-run`, which reads
 * the table only, runs, with a note of what the command itself needs. The refusal, and the
 * typed inbox a command that sends gets (`requireInbox`), are here too.
 */
import {
  GetQueueAttributesCommand,
  ListDeadLetterSourceQueuesCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import { BATON_ENV, type SqsQueue } from '@baton/aws';
import { BatonError, ErrorCode } from '@baton/core';
import { unansweredIn } from './awsClients.ts';
import type { Target, TargetOptions } from './target.ts';

/**
 * Why each command that sends to the inbox needs it, as its refusal says it ("it needs the
 * app's inbox queue <why>"). `inspect` needs it only with `--allow-actions`.
 */
export const INBOX_NEEDS: Readonly<Record<string, string>> = {
  'actors pause': 'to send the actor a wake-up',
  'actors resume': 'to send the actor a wake-up',
  'dead-letters redrive': 'to send each letter back',
  'queue-dead-letters redrive': "to move its dead-letter queue's messages back",
  'workflows cancel': 'to send the cancel to the instance',
  'workflows terminate': 'to send the terminate to the instance',
  'workflows signal': 'to send the signal to the instance',
  'workflows resume': 'to send the resume to the instance',
  send: 'to send the message',
  ask: 'to send the message',
  inspect: "for the page's actions --allow-actions allows (redrive, pause, resume)",
};

/** What {@link checkInbox} reads of a command's context (an `OpsContext`). */
interface InboxCheck {
  readonly values: TargetOptions & {
    readonly 'allow-actions'?: boolean;
    readonly 'dry-run'?: boolean;
  };
  readonly io: { readonly env: Readonly<Record<string, string | undefined>> };
  note(text: string): void;
}

/**
 * Refuses command `name` when it needs the inbox and only the table is named; a dry run of it
 * goes on, noting what the command itself needs. Called before the command runs.
 */
export function checkInbox(ctx: InboxCheck, name: string): void {
  const why = INBOX_NEEDS[name];
  if (why === undefined) return;
  if (name === 'inspect' && ctx.values['allow-actions'] !== true) return;
  const table = tableAlone(ctx.values, ctx.io.env);
  if (table === undefined) return;
  if (ctx.values['dry-run']) {
    ctx.note(
      `a dry run reads the table alone; without --dry-run, baton ${name} needs the app's inbox queue ${why}: ${NAME_THE_INBOX}`,
    );
    return;
  }
  throw inboxRefusal(
    table,
    why,
    name === 'inspect' ? ' (or drop --allow-actions: the inspector reads the table alone)' : '',
  );
}

/** How to name the inbox beside a table, as each refusal and note for want of it says. */
export const NAME_THE_INBOX =
  "pass --queue-url <inbox url> too (also BATON_INBOX_URL; the stack's Inbox queue), or --stack <name> instead";

/**
 * The table's name when the options (or the environment) name the table outright and not its
 * app's inbox (`--table` without `--queue-url`); else `undefined` — `--stack` and `--local`
 * name the inbox too, and a target with neither or no table is refused by {@link resolveTarget}.
 * Read from the options alone, it is known before the command reads or asks anything.
 */
export function tableAlone(
  options: TargetOptions,
  env: Readonly<Record<string, string | undefined>>,
): string | undefined {
  if (options.stack !== undefined || options.local !== undefined) return undefined;
  const table = options.table ?? env[BATON_ENV.table];
  const inboxUrl = options['queue-url'] ?? env[BATON_ENV.inboxUrl];
  return table && !inboxUrl ? table : undefined;
}

/**
 * The refusal of a command that needs the inbox (`why`: `to send the actor a wake-up`) given
 * only the table: a usage error, naming the ways to pass the inbox; `extra` follows them.
 */
export function inboxRefusal(table: string, why: string, extra = ''): BatonError {
  return new BatonError(
    ErrorCode.INVALID_ARGUMENT,
    `it needs the app's inbox queue ${why}, and only the app's table ${table} is named: ${NAME_THE_INBOX}${extra}; nothing was done`,
    { details: { table, missing: 'queue-url' } },
  );
}

/** The target's inbox, its queue and URL; refused as {@link inboxRefusal} says when not named. */
export function requireInbox(target: Target): { queue: SqsQueue; url: string } {
  const { queue, names } = target;
  if (!queue || !names.inboxUrl) throw inboxRefusal(names.table, 'to send to it');
  return { queue, url: names.inboxUrl };
}

/**
 * Refuses, before a command changes anything, an inbox URL that names no inbox: a queue that
 * does not exist, one that is not FIFO, or a dead-letter queue (another queue's redrive policy
 * names it), which would take a redrive or a message and never apply it. A check SQS cannot
 * answer (a caller without `sqs:ListDeadLetterSourceQueues`) lets the command go on.
 */
export async function checkInboxQueue(sqs: SQSClient, url: string): Promise<void> {
  const refuse = (why: string) =>
    new BatonError(
      ErrorCode.INVALID_ARGUMENT,
      `the inbox queue ${url} ${why}; check --queue-url (or BATON_INBOX_URL), or name the deployment with --stack; nothing was done`,
      { details: { queueUrl: url } },
    );
  let fifo: string | undefined;
  try {
    const attributes = new GetQueueAttributesCommand({
      QueueUrl: url,
      AttributeNames: ['FifoQueue'],
    });
    fifo = (await sqs.send(attributes)).Attributes?.FifoQueue;
  } catch (error) {
    // SQS not answering fails the command now, rather than at its first send.
    if (unansweredIn(error)) throw error;
    const name = (error as Error).name;
    if (name === 'QueueDoesNotExist' || name.endsWith('NonExistentQueue')) {
      throw refuse(`does not exist (${name})`);
    }
    return;
  }
  if (fifo !== 'true') throw refuse("is not a FIFO queue, as Baton's inbox is");
  let sources: readonly string[];
  try {
    const named = new ListDeadLetterSourceQueuesCommand({ QueueUrl: url });
    sources = (await sqs.send(named)).queueUrls ?? [];
  } catch (error) {
    if (unansweredIn(error)) throw error;
    return;
  }
  if (sources.length > 0) {
    throw refuse(
      `is the dead-letter queue of ${sources.join(', ')}, not an inbox: a message sent to it is never applied (the inbox is --queue-url ${sources[0]})`,
    );
  }
}
