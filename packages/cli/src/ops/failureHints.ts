/**
 * The advice `baton` prints after a command's AWS call failed: which table and queues it looked
 * for and where, where the SDK takes a region and credentials, and what to do when the table
 * throttles.
 */
import { MAX_OUTBOX_SHARDS } from '@baton/aws';
import { maxAttempts, unansweredIn } from './awsClients.ts';
import type { OpsContext } from './OpsContext.ts';
import type { Target } from './target.ts';

/**
 * What to check after an AWS failure, given with the error: for an answer that a table or queue
 * does not exist, which ones the command looked for, and where (a wrong name or region reads as
 * a missing resource); for a region or credentials the SDK found none of (or were refused),
 * where it looks for them. The `--stack` path says so itself when it cannot read the stack. A
 * service that did not answer is named, with its endpoint, by the error itself (awsClients.ts):
 * see {@link unansweredHint}.
 */
export async function missingHint(ctx: OpsContext, message: string): Promise<string> {
  if (ACCESS.test(message) && !message.includes('your credentials')) return accessHint(message);
  if (!/ResourceNotFoundException|NonExistentQueue|QueueDoesNotExist/.test(message)) return '';
  const target = await ctx.target().catch(() => undefined);
  if (!target) return '';
  return notFoundHint(target);
}

/** The errors of DynamoDB refusing calls over the table's (or the account's) throughput. */
const TABLE_THROTTLED =
  /ProvisionedThroughputExceeded|RequestLimitExceeded|DynamoDB [^:]+ failed: ThrottlingException/;

/**
 * The advice after an error {@link TABLE_THROTTLED} matches, which the clients' retries did not
 * outlast (awsClients.ts): what throttles, and what to do — wait and run it again, read fewer
 * index keys (`--outbox-shards`, unless the target names them already), or raise the capacity.
 */
export async function throttleHint(
  ctx: OpsContext,
  command: string,
  message: string,
): Promise<string> {
  if (!TABLE_THROTTLED.test(message)) return '';
  // Under AWS_RETRY_MODE the SDK's own mode retried, as many times as it does.
  const tries = maxAttempts(ctx.io.env);
  const attempts = ctx.io.env.AWS_RETRY_MODE
    ? 'past its retries'
    : `${tries} time${tries === 1 ? '' : 's'}`;
  const target = await ctx.target().catch(() => undefined);
  const shards =
    READS_OUTBOX_INDEX.has(command) && target?.names.outboxShards === undefined
      ? `; name the app's outboxShards with --outbox-shards <n> (or use --stack, whose outputs name it): without it, the reads of the outbox index query all ${MAX_OUTBOX_SHARDS} keys it may use`
      : '';
  return `\n  the table is throttling: DynamoDB refused a call of this command ${attempts} (the app's traffic takes its capacity, or one partition is hot). Run the command again in a minute${shards}; or raise the table's capacity (its provisioned capacity, or its on-demand maximum throughput)`;
}

/** The commands that query every key of the outbox index the app may use. */
const READS_OUTBOX_INDEX: ReadonlySet<string> = new Set(['status', 'backlog']);

/** The errors of a region or credentials missing or refused, as the AWS SDK words them. */
const ACCESS =
  /Region is missing|CredentialsProviderError|Could not load credentials|credentials from any providers|UnrecognizedClientException|InvalidClientTokenId|ExpiredToken|security token included in the request is (?:invalid|expired)|InvalidAccessKeyId|SignatureDoesNotMatch/;

/**
 * The advice after an error {@link ACCESS} matches: where the SDK takes a region and credentials.
 *
 * @example
 * accessHint('Region is missing'); // '\n  no region: pass --region <r> (or set AWS_REGION) …'
 */
function accessHint(message: string): string {
  const what = /Region is missing/.test(message)
    ? 'no region was found: pass --region <r> (or set AWS_REGION, or a region in your AWS profile)'
    : 'no credentials were found, or they were refused: check your credentials (AWS_PROFILE, or the AWS_ACCESS_KEY_ID of the account the app runs in; `aws sts get-caller-identity` shows whose they are)';
  return `\n  ${what}; check too the names (--stack, or --table and --queue-url) and the region (--region or AWS_REGION)`;
}

/**
 * Which table and queues a command looked for, and where: at the endpoints it was given (the
 * emulators, `baton dev`), else in the region.
 */
function notFoundHint(target: Target): string {
  const { table, inboxUrl, deadLetterQueueUrl } = target.names;
  const inbox = inboxUrl ? ` and inbox ${inboxUrl}` : '';
  const dlq = !deadLetterQueueUrl
    ? ''
    : inboxUrl
      ? ` (and its dead-letter queue ${deadLetterQueueUrl})`
      : ` and the inbox's dead-letter queue ${deadLetterQueueUrl}`;
  const flag = `${inboxUrl ? ', --queue-url' : ''}${deadLetterQueueUrl ? ', --dead-letter-queue-url' : ''}`;
  const { dynamodb, sqs } = target.endpoints;
  const at =
    dynamodb !== undefined || sqs !== undefined
      ? [...(dynamodb ? [`DynamoDB at ${dynamodb}`] : []), ...(sqs ? [`SQS at ${sqs}`] : [])].join(
          ' and ',
        )
      : undefined;
  return at
    ? `\n  looked for table ${table}${inbox}${dlq} on ${at}: check the names (--table${flag}) and the endpoints (--dynamodb-endpoint, --sqs-endpoint)`
    : `\n  looked for table ${table}${inbox}${dlq} in region ${target.region ?? '(the SDK default)'}: check the names (--stack, --table${flag}) and the region (--region or AWS_REGION)`;
}

/**
 * What an acting command that failed for want of an answer (`unansweredIn`) did, as far as the
 * CLI knows: nothing, when none of its writes may have reached the table or a queue; else that
 * it may have taken effect, and how to tell before running it again. `send` and `ask` say it
 * in their own error (the key to send again under); a command that only reads needs nothing
 * more than the error's own "run the command again".
 */
export async function unansweredHint(
  ctx: OpsContext,
  command: string,
  error: unknown,
): Promise<string> {
  if (!unansweredIn(error) || !ACTING.has(command)) return '';
  const target = await ctx.target().catch(() => undefined);
  if (target?.writes.count === 0) {
    return '\n  none of its writes reached the table or a queue: it changed nothing';
  }
  const check = EFFECT_CHECKS[command];
  return check ? `\n  it may have taken effect before that, in part or whole: ${check(ctx)}` : '';
}

/** The commands that change what the table or a queue holds (`inspect` acts by its page). */
const ACTING: ReadonlySet<string> = new Set([
  'actors pause',
  'actors resume',
  'actors end-failing',
  'dead-letters redrive',
  'dead-letters purge',
  'queue-dead-letters redrive',
  'timers cancel',
  'workflows cancel',
  'workflows terminate',
  'workflows signal',
  'workflows resume',
  'send',
  'ask',
]);

/** How to tell whether an acting command took effect, and whether to run it again. */
const EFFECT_CHECKS: Readonly<Record<string, (ctx: OpsContext) => string>> = {
  'actors pause': (ctx) =>
    `${ctx.followUp`actors get ${ctx.args[0] ?? ''}`} shows whether it is paused; run the pause again: of a paused actor, it sends the wake-up again and changes nothing else`,
  'actors resume': (ctx) =>
    `${ctx.followUp`actors get ${ctx.args[0] ?? ''}`} shows whether it is paused still; run the resume again: it resumes a paused actor, wakes one resumed with messages still parked, and refuses one with neither`,
  'actors end-failing': (ctx) =>
    `${ctx.followUp`actors get ${ctx.args[0] ?? ''}`} shows whether the message is ended; run it again: of a message ended already, it changes nothing`,
  'dead-letters redrive': (ctx) =>
    `run it again: a letter redriven twice is applied once (each stays listed in ${ctx.followUp`dead-letters list`} until its actor applies it)`,
  'dead-letters purge': (ctx) =>
    `${ctx.followUp`dead-letters list`} shows the letters still kept: purge those again`,
  'queue-dead-letters redrive': (ctx) =>
    `${ctx.followUp`queue-dead-letters list`} shows the messages still there; run it again to move them: a message moved twice is applied at most once`,
  'timers cancel': (ctx) =>
    `${ctx.followUp`timers list ${ctx.args[0] ?? ''}`} shows whether timer ${ctx.args[1] ?? ''} is pending still: if it is, cancel it again`,
  'workflows cancel': workflowCheck,
  'workflows terminate': workflowCheck,
  'workflows signal': workflowCheck,
  'workflows resume': workflowCheck,
};

/** {@link EFFECT_CHECKS} of a workflow's action: the instance shows whether it took it. */
function workflowCheck(ctx: OpsContext): string {
  const again = ctx.values.key
    ? 'run it again with the same --key, which makes the two one message'
    : 'run it again only if it did not: without --key, it is sent again as another message';
  return `${ctx.followUp`workflows show ${ctx.args[0] ?? ''} ${ctx.args[1] ?? ''}`} shows whether the instance took it; ${again}`;
}
