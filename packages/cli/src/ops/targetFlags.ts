/**
 * The target options a hint's follow-up command repeats, so that, copied, it acts on the
 * deployment the operator was looking at: which options, and the command line they make.
 */
import { shellQuote } from '@baton/core/engine';

/** The target options every operating command takes (see `USAGE`). */
export interface TargetOptions {
  readonly stack?: string;
  /** A running `baton dev --backend local-aws` (its URL): it names its table and queues. */
  readonly local?: string;
  readonly table?: string;
  readonly 'queue-url'?: string;
  readonly 'dead-letter-queue-url'?: string;
  readonly 'timer-queue-url'?: string;
  readonly 'timer-dead-letter-queue-url'?: string;
  readonly 'stream-failure-queue-url'?: string;
  readonly 'dynamodb-endpoint'?: string;
  readonly 'sqs-endpoint'?: string;
  readonly region?: string;
  /** The outbox index's key count: the app's `outboxShards` (also `BATON_OUTBOX_SHARDS`). */
  readonly 'outbox-shards'?: string;
}

/**
 * The options of {@link TargetOptions} a follow-up command repeats, in this order (the type
 * makes a new target option one to add here). None carries a secret: each names a stack, a
 * region, a URL or a resource, and credentials come only from the AWS SDK's default chain. A
 * target option that carried a secret would be `false` here, so that no hint prints it.
 */
const REPEATED: Readonly<Record<keyof TargetOptions, boolean>> = {
  stack: true,
  local: true,
  table: true,
  'queue-url': true,
  'dead-letter-queue-url': true,
  'timer-queue-url': true,
  'timer-dead-letter-queue-url': true,
  'stream-failure-queue-url': true,
  'dynamodb-endpoint': true,
  'sqs-endpoint': true,
  region: true,
  'outbox-shards': true,
};

/**
 * The follow-up command `baton <command>` with the target options this invocation was given
 * ({@link targetFlags}), so that a hint copied as printed acts on the deployment the operator
 * was looking at (not the default one). `command` is kept as written: its operands quoted already
 * (a hint writes it as a {@link FollowUp} template, `OpsContext.followUp`).
 *
 * @example
 * followUp('workflows show checkout o-1', { stack: 'bank', region: 'eu-west-1' });
 * // 'baton workflows show checkout o-1 --stack bank --region eu-west-1'
 */
export function followUp(command: string, options: TargetOptions): string {
  return ['baton', command, ...targetFlags(options)].join(' ');
}

/**
 * The target options a follow-up repeats, their values shell-quoted: `['--stack', 'bank']`.
 * Those read from the environment (`BATON_TABLE`, `AWS_REGION`, …) are not: the shell has them.
 */
export const targetFlags = (options: TargetOptions): string[] =>
  Object.entries(REPEATED).flatMap(([flag, repeated]) => {
    const value = options[flag as keyof TargetOptions];
    return repeated && value !== undefined ? [`--${flag}`, shellQuote(value)] : [];
  });
