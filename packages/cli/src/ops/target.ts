/**
 * Which deployment a `baton` operating command acts on: a CloudFormation stack that holds a
 * `BatonApp` (its outputs name the table and the queues), or the resources named outright —
 * what tests use against DynamoDB Local and ElasticMQ. Credentials and region come from the
 * AWS SDK's default chain.
 */
import { CloudFormationClient, DescribeStacksCommand } from '@aws-sdk/client-cloudformation';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { SQSClient } from '@aws-sdk/client-sqs';
import {
  BATON_ENV,
  DynamoStore,
  MAX_OUTBOX_SHARDS,
  SqsQueue,
  storeOptionsFromEnvironment,
} from '@baton/aws';
import { BatonError, ErrorCode } from '@baton/core';
import { type FollowUp, shellQuote } from '@baton/core/engine';
import { OPERATOR_HTTP, operatorClients, operatorRetries, type WritesSent } from './awsClients.ts';
import type { TargetOptions } from './targetFlags.ts';

export { followUp, type TargetOptions, targetFlags } from './targetFlags.ts';
export { type FollowUp, shellQuote };

/** The resources of one deployed app, as its stack outputs (or the options) name them. */
export interface TargetNames {
  readonly table: string;
  /**
   * The app's inbox queue; absent when only the table is named (`--table` without
   * `--queue-url`): the commands that send to it are refused then, and those that read its depth
   * (`status`, `backlog`) leave it out, saying so (see inboxNeeds.ts).
   */
  readonly inboxUrl?: string;
  readonly deadLetterQueueUrl?: string;
  readonly timerQueueUrl?: string;
  /** The timer messages the relay gave up on (`BatonApp.timerDeadLetterQueue`). */
  readonly timerDeadLetterQueueUrl?: string;
  /** The table changes the stream function gave up on (`BatonApp.streamFailureQueue`). */
  readonly streamFailureQueueUrl?: string;
  readonly ingressUrl?: string;
  readonly webSocketUrl?: string;
  /** The outbox index's key count, as the functions read it (`BATON_OUTBOX_SHARDS`). */
  readonly outboxShards?: string;
}

/** A deployment to operate: its names, and the store and inbox on the SDK's clients. */
export interface Target {
  readonly names: TargetNames;
  /** The store, writing the outbox index over as many keys as the app's functions read. */
  readonly store: DynamoStore;
  /**
   * The store to read the whole outbox index with (every dead letter, the timers due, the
   * actors whose sends wait): `store` when the app's key count is known; otherwise one that
   * reads all {@link MAX_OUTBOX_SHARDS} keys, so no read is partial (an app with `outboxShards`
   * above the default keeps items under keys the default count never reads).
   */
  readonly indexReader: DynamoStore;
  /** The inbox; `undefined` when only the table is named (`requireInbox` refuses then). */
  readonly queue: SqsQueue | undefined;
  readonly deadLetterQueue: SqsQueue | undefined;
  readonly dynamodb: DynamoDBClient;
  readonly sqs: SQSClient;
  /**
   * How many writes of the command (to the table or a queue) may have reached their service so
   * far: none, and a failure knows the command changed nothing.
   */
  readonly writes: Readonly<WritesSent>;
  /** Whether it runs on local emulators (no STS to ask who the caller is). */
  readonly local: boolean;
  readonly region: string | undefined;
  /** The endpoints the clients were given (DynamoDB Local, ElasticMQ, `baton dev`'s), if any. */
  readonly endpoints: { readonly dynamodb?: string; readonly sqs?: string };
}

/** The description each of `BatonApp`'s outputs starts with, then what it names. */
export const OUTPUT_PREFIX = 'baton:';

/** Output names (after {@link OUTPUT_PREFIX}) → the names a target reads. */
const OUTPUTS: Record<string, keyof TargetNames> = {
  table: 'table',
  inbox: 'inboxUrl',
  deadLetters: 'deadLetterQueueUrl',
  timers: 'timerQueueUrl',
  timerDeadLetters: 'timerDeadLetterQueueUrl',
  streamFailures: 'streamFailureQueueUrl',
  ingress: 'ingressUrl',
  webSocket: 'webSocketUrl',
  outboxShards: 'outboxShards',
};

/**
 * Resolves the target: `--stack` reads the stack's outputs; otherwise `--table` and
 * `--queue-url` (or `BATON_TABLE` / `BATON_INBOX_URL`) name the resources outright — the table
 * alone for a command that only reads it.
 */
export async function resolveTarget(
  options: TargetOptions,
  env: Readonly<Record<string, string | undefined>>,
): Promise<Target> {
  refuseConflicts(options);
  const dev = options.local ? await devNames(options.local) : undefined;
  const dynamodbEndpoint =
    dev?.dynamodbEndpoint ?? options['dynamodb-endpoint'] ?? env.BATON_DYNAMODB_ENDPOINT;
  const sqsEndpoint = dev?.sqsEndpoint ?? options['sqs-endpoint'] ?? env.BATON_SQS_ENDPOINT;
  const region = options.region ?? env.AWS_REGION ?? env.AWS_DEFAULT_REGION;
  const names = dev
    ? dev.names
    : options.stack
      ? await stackNames(options.stack, region, env)
      : explicitNames(options, env);
  const { dynamodb, sqs, writes } = operatorClients({ region, dynamodbEndpoint, sqsEndpoint }, env);
  const store = new DynamoStore({
    client: dynamodb,
    tableName: names.table,
    // The sweeper's view of the outbox index: as many keys as the app's functions write.
    ...storeOptionsFromEnvironment({ [BATON_ENV.outboxShards]: names.outboxShards }),
  });
  // `baton dev` runs its app on the default count; elsewhere an unknown count may be any.
  const known = names.outboxShards !== undefined || dev !== undefined;
  return {
    names,
    store,
    indexReader: known
      ? store
      : new DynamoStore({
          client: dynamodb,
          tableName: names.table,
          outboxShards: MAX_OUTBOX_SHARDS,
        }),
    queue: names.inboxUrl ? new SqsQueue({ client: sqs, queueUrl: names.inboxUrl }) : undefined,
    deadLetterQueue: names.deadLetterQueueUrl
      ? new SqsQueue({ client: sqs, queueUrl: names.deadLetterQueueUrl })
      : undefined,
    dynamodb,
    sqs,
    writes,
    local: dynamodbEndpoint !== undefined || sqsEndpoint !== undefined,
    region,
    endpoints: {
      ...(dynamodbEndpoint ? { dynamodb: dynamodbEndpoint } : {}),
      ...(sqsEndpoint ? { sqs: sqsEndpoint } : {}),
    },
  };
}

/**
 * The target options each way of naming a deployment makes moot: `--local` names the table, the
 * queues and the endpoints; `--stack` the table and the queues. Given with it, one would be
 * dropped unseen, and the command act on another deployment than the one it names.
 */
const STACK_NAMES: ReadonlyArray<keyof TargetOptions> = [
  'table',
  'queue-url',
  'dead-letter-queue-url',
  'timer-queue-url',
  'timer-dead-letter-queue-url',
  'stream-failure-queue-url',
];
const NAMED_BY: Readonly<Record<'local' | 'stack', ReadonlyArray<keyof TargetOptions>>> = {
  local: ['stack', ...STACK_NAMES, 'dynamodb-endpoint', 'sqs-endpoint'],
  stack: STACK_NAMES,
};

/** Refuses `--local` or `--stack` given with a target option it names itself. */
function refuseConflicts(options: TargetOptions): void {
  for (const way of ['local', 'stack'] as const) {
    if (options[way] === undefined) continue;
    const given = NAMED_BY[way].filter((option) => options[option] !== undefined);
    if (given.length === 0) continue;
    const flags = given.map((option) => `--${option}`).join(', ');
    throw new BatonError(
      ErrorCode.INVALID_ARGUMENT,
      `--${way} names the deployment's ${way === 'local' ? 'table, queues and endpoints' : 'table and queues'} itself, so ${flags} cannot go with it: pass --${way} alone, or drop it and name the resources outright (--table <name> --queue-url <inbox url> …); nothing was done`,
    );
  }
}

/** What `baton dev` at `url` answers on `/_baton/target` (it runs with `--backend local-aws`). */
async function devNames(
  url: string,
): Promise<{ names: TargetNames; dynamodbEndpoint: string; sqsEndpoint: string }> {
  let response: Response;
  try {
    response = await fetch(new URL('/_baton/target', url));
  } catch (error) {
    throw new BatonError(
      ErrorCode.UNAVAILABLE,
      `no baton dev answers at ${url} (${(error as Error).message}): start it, or pass the URL it prints`,
      { cause: error },
    );
  }
  const body = (await response.json().catch(() => ({}))) as {
    error?: { message?: string };
    table?: string;
    inboxUrl?: string;
    deadLetterQueueUrl?: string;
    dynamodbEndpoint?: string;
    sqsEndpoint?: string;
  };
  if (
    !response.ok ||
    !body.table ||
    !body.inboxUrl ||
    !body.dynamodbEndpoint ||
    !body.sqsEndpoint
  ) {
    throw new BatonError(
      ErrorCode.INVALID_ARGUMENT,
      body.error?.message ??
        `${url} answered ${response.status} without a table and queue: is it a baton dev of this version?`,
    );
  }
  return {
    names: {
      table: body.table,
      inboxUrl: body.inboxUrl,
      ...(body.deadLetterQueueUrl ? { deadLetterQueueUrl: body.deadLetterQueueUrl } : {}),
    },
    dynamodbEndpoint: body.dynamodbEndpoint,
    sqsEndpoint: body.sqsEndpoint,
  };
}

function explicitNames(
  options: TargetOptions,
  env: Readonly<Record<string, string | undefined>>,
): TargetNames {
  const table = options.table ?? env[BATON_ENV.table];
  const inboxUrl = options['queue-url'] ?? env[BATON_ENV.inboxUrl];
  if (!table && !inboxUrl) {
    throw new BatonError(
      ErrorCode.INVALID_ARGUMENT,
      "no deployment to act on: pass --stack <name> (a stack with a BatonApp), or --table <name> (and --queue-url <inbox url> for a command that sends to the inbox, or for the inbox's depth in status and backlog; --dynamodb-endpoint/--sqs-endpoint for local emulators)",
    );
  }
  // The table alone is a target: the commands that send to the inbox refuse it before they
  // read anything (inboxNeeds.ts), and `status` and `backlog` say they left its depth out.
  if (!table) {
    throw new BatonError(
      ErrorCode.INVALID_ARGUMENT,
      `the inbox ${inboxUrl} is named, but not its app's table: pass --table <name> too (also BATON_TABLE), or --stack <name> instead of both`,
    );
  }
  // The queues only operators read: the functions have no variable of theirs to share.
  const deadLetters = options['dead-letter-queue-url'] ?? env.BATON_DEAD_LETTER_QUEUE_URL;
  const timers = options['timer-queue-url'] ?? env[BATON_ENV.timerQueueUrl];
  const timerDeadLetters =
    options['timer-dead-letter-queue-url'] ?? env.BATON_TIMER_DEAD_LETTER_QUEUE_URL;
  const flag = options['outbox-shards'];
  if (
    flag !== undefined &&
    !(/^\d+$/.test(flag) && Number(flag) >= 1 && Number(flag) <= MAX_OUTBOX_SHARDS)
  ) {
    throw new BatonError(
      ErrorCode.INVALID_ARGUMENT,
      `--outbox-shards takes the app's outboxShards, a whole number from 1 to ${MAX_OUTBOX_SHARDS}, not "${flag}"`,
    );
  }
  const shards = flag ?? env[BATON_ENV.outboxShards];
  const streamFailures = options['stream-failure-queue-url'] ?? env.BATON_STREAM_FAILURE_QUEUE_URL;
  if (deadLetters !== undefined && deadLetters === inboxUrl) {
    throw new BatonError(
      ErrorCode.INVALID_ARGUMENT,
      "--dead-letter-queue-url names the inbox itself: pass the inbox's dead-letter queue (the stack's DeadLetters queue)",
    );
  }
  return {
    table,
    ...(inboxUrl ? { inboxUrl } : {}),
    ...(deadLetters ? { deadLetterQueueUrl: deadLetters } : {}),
    ...(timers ? { timerQueueUrl: timers } : {}),
    ...(timerDeadLetters ? { timerDeadLetterQueueUrl: timerDeadLetters } : {}),
    ...(streamFailures ? { streamFailureQueueUrl: streamFailures } : {}),
    ...(shards ? { outboxShards: shards } : {}),
  };
}

/** The names a stack's `BatonApp` outputs carry (`baton:<what> <construct path>`). */
async function stackNames(
  stack: string,
  region: string | undefined,
  env: Readonly<Record<string, string | undefined>>,
): Promise<TargetNames> {
  // DescribeStacks is throttled at a few calls a second per account: retried as the rest are.
  const client = new CloudFormationClient({
    ...operatorRetries(env),
    ...OPERATOR_HTTP,
    ...(region ? { region } : {}),
  });
  let outputs: Array<{ OutputValue?: string; Description?: string }>;
  try {
    const described = await client.send(new DescribeStacksCommand({ StackName: stack }));
    outputs = described.Stacks?.[0]?.Outputs ?? [];
  } catch (error) {
    throw new BatonError(
      ErrorCode.UNAVAILABLE,
      `could not read stack ${stack}: ${(error as Error).message}; check its name, the region (--region or AWS_REGION) and your credentials`,
      { cause: error },
    );
  }
  return namesFromOutputs(stack, outputs);
}

/**
 * The target names in a stack's outputs. A stack with more than one `BatonApp` is refused:
 * name the resources with `--table` and `--queue-url` instead.
 *
 * @example
 * namesFromOutputs('bank', [{ Description: 'baton:table Bank/App', OutputValue: 'bank-table' }, …]);
 */
export function namesFromOutputs(
  stack: string,
  outputs: ReadonlyArray<{ OutputValue?: string; Description?: string }>,
): TargetNames {
  const apps = new Map<string, Record<string, string>>();
  for (const { Description, OutputValue } of outputs) {
    if (!Description?.startsWith(OUTPUT_PREFIX) || OutputValue === undefined) continue;
    const [what = '', path = ''] = Description.slice(OUTPUT_PREFIX.length).split(' ');
    const name = OUTPUTS[what];
    if (!name) continue;
    const app = apps.get(path) ?? {};
    app[name] = OutputValue;
    apps.set(path, app);
  }
  if (apps.size !== 1) {
    throw new BatonError(
      ErrorCode.INVALID_ARGUMENT,
      apps.size === 0
        ? `stack ${stack} has no BatonApp outputs: deploy it with a @baton/cdk version that writes them, or pass --table and --queue-url`
        : `stack ${stack} holds ${apps.size} BatonApps (${[...apps.keys()].join(', ')}): pass --table and --queue-url of the one to act on`,
    );
  }
  const [names] = [...apps.values()];
  if (!names?.table || !names.inboxUrl) {
    throw new BatonError(
      ErrorCode.INVALID_ARGUMENT,
      `stack ${stack}'s BatonApp outputs name no table or inbox: redeploy it with the current @baton/cdk`,
    );
  }
  return names as unknown as TargetNames;
}
