import { Duration, Token } from 'aws-cdk-lib';
import * as logs from 'aws-cdk-lib/aws-logs';
import type { BatonAppProps, IngressAuth } from './BatonAppProps.ts';

/** The props with defaults filled in. */
export interface BatonAppSettings {
  readonly batchSize: number;
  readonly maxConcurrency: number;
  readonly maxReceiveCount: number;
  readonly workerTimeout: Duration;
  readonly ingressAuth: IngressAuth;
  readonly stageName: string;
  readonly logRetention: logs.RetentionDays;
}

/**
 * Checks every prop, collecting all problems into one error (like the CDK's own constructs), and
 * fills in the defaults.
 */
export function validateProps(props: BatonAppProps): BatonAppSettings {
  const problems: string[] = [];
  if (typeof props?.entry !== 'string' || props.entry === '') {
    problems.push('entry must be the path of the module that exports defineApp(...) as default');
  }
  const integer = (
    name: string,
    value: number | undefined,
    fallback: number,
    min: number,
    max: number,
  ) => {
    const v = value ?? fallback;
    if (!Token.isUnresolved(v) && (!Number.isInteger(v) || v < min || v > max)) {
      problems.push(`${name} must be an integer from ${min} to ${max}, got ${v}`);
    }
    return v;
  };
  const batchSize = integer('batchSize', props?.batchSize, 10, 1, 10);
  const maxConcurrency = integer('maxConcurrency', props?.maxConcurrency, 10, 2, 1000);
  const maxReceiveCount = integer('maxReceiveCount', props?.maxReceiveCount, 10, 1, 1000);
  const workerTimeout = props?.workerTimeout ?? Duration.seconds(30);
  // The inbox's visibility timeout is six times the worker's, and at most 12 hours.
  if (workerTimeout.toSeconds() < 1 || workerTimeout.toSeconds() * 6 > 12 * 3600) {
    problems.push(
      `workerTimeout must be from 1 second to 2 hours, got ${workerTimeout.toHumanString()}`,
    );
  }
  const ingressAuth = props?.ingressAuth ?? 'iam';
  if (ingressAuth !== 'iam' && ingressAuth !== 'none') {
    problems.push(`ingressAuth must be 'iam' or 'none', got ${JSON.stringify(ingressAuth)}`);
  }
  const stageName = props?.stageName ?? 'live';
  if (!/^[A-Za-z0-9_]{1,128}$/.test(stageName)) {
    problems.push(
      `stageName must be 1 to 128 letters, digits or underscores, got ${JSON.stringify(stageName)}`,
    );
  }
  const days = integer('logRetentionDays', props?.logRetentionDays, 30, 1, 3653);
  const logRetention = Object.values(logs.RetentionDays).includes(days as logs.RetentionDays)
    ? (days as logs.RetentionDays)
    : undefined;
  if (logRetention === undefined && Number.isInteger(days)) {
    problems.push(
      `logRetentionDays must be one CloudWatch Logs offers (1, 3, 5, 7, 14, 30, …), got ${days}`,
    );
  }
  if (problems.length > 0) {
    throw new Error(`invalid BatonApp props:\n- ${problems.join('\n- ')}`);
  }
  return {
    batchSize,
    maxConcurrency,
    maxReceiveCount,
    workerTimeout,
    ingressAuth,
    stageName,
    logRetention: logRetention!,
  };
}
