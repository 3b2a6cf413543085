/**
 * The deployed worker's turn metrics, on without app code: each turn's counts (`turnMetrics`)
 * go out as CloudWatch EMF log lines through Powertools Metrics, no call to CloudWatch.
 */
import { Metrics } from '@aws-lambda-powertools/metrics';
import { BATON_ENV, DEFAULT_METRICS_NAMESPACE } from '../environment.ts';

/**
 * Powertools Metrics for the worker, or `undefined` when `BATON_METRICS` is `off` (the
 * construct's `metrics: false`). The namespace is `POWERTOOLS_METRICS_NAMESPACE` (default
 * `Baton`), the `service` dimension `POWERTOOLS_SERVICE_NAME` (the construct sets the app's
 * path); Powertools' own `POWERTOOLS_METRICS_DISABLED` still applies.
 *
 * @example
 * workerHandler({ …, metrics: workerMetricsFromEnvironment() });
 */
export function workerMetricsFromEnvironment(
  env: Readonly<Record<string, string | undefined>> = process.env,
): Metrics | undefined {
  const setting = env[BATON_ENV.metrics]?.trim().toLowerCase();
  if (setting === 'off' || setting === 'false') return undefined;
  return new Metrics({
    namespace: env.POWERTOOLS_METRICS_NAMESPACE || DEFAULT_METRICS_NAMESPACE,
    serviceName: env.POWERTOOLS_SERVICE_NAME || 'baton-worker',
  });
}
