/**
 * What each turn did, for metrics: the engine calls `onTurn` (an engine option) once per turn a
 * worker runs, and `turnMetrics` turns that into Powertools Metrics (CloudWatch EMF: metrics
 * written as log lines, no API call per turn).
 */

/** One turn, counted: the messages of its batch by what became of them, and its cost. */
export interface TurnStats {
  readonly actorId: string;
  /** The actor's type (the id before `/`): the metrics' dimension. */
  readonly actorType: string;
  /** Wall-clock time of the turn, drains and timers included. */
  readonly durationMs: number;
  /** Messages the turn was given. */
  readonly batchSize: number;
  /** Handled and committed. */
  readonly applied: number;
  /** Rejected for good (a TerminalError, a reply too large …), answered with the error. */
  readonly rejected: number;
  /**
   * Of the dead-lettered, those whose handler would have grown the state past the record limit
   * (STATE_TOO_LARGE): the code's fault, which only a change to it mends.
   */
  readonly stateTooLarge: number;
  /** Ended after `maxAttempts` deliveries, or at once for the code's fault, kept to redrive. */
  readonly deadLettered: number;
  /** Held for a paused actor. */
  readonly parked: number;
  /** Skipped: duplicates, late replies, fires of cancelled timers. */
  readonly skipped: number;
  /** Left for the queue to deliver again (a retryable error, or the turn failed). */
  readonly retried: number;
  /** Commits lost to another writer, each redone. */
  readonly versionConflicts: number;
  /**
   * Commits made only to move sender marks out of the record first, so that a message whose
   * commit could not hold those moves fits its own, or to close an outcome page its outcome
   * does not fit beside (each one more write).
   */
  readonly roomCommits: number;
  /** Whether the turn failed as a whole (its messages come back). */
  readonly failed: boolean;
}

/** Told of every turn: see {@link TurnStats}. Keep it cheap; it runs on the hot path. */
export type TurnListener = (stats: TurnStats) => void;

/**
 * What {@link turnMetrics} needs of a metrics object: Powertools' `Metrics` from
 * `@aws-lambda-powertools/metrics` fits.
 */
export interface MetricsRecorder {
  addMetric(name: string, unit: 'Count' | 'Milliseconds', value: number): void;
}

/**
 * A turn listener that records each turn as metrics: `TurnDuration` (ms), `BatchSize`,
 * `MessagesApplied`, `MessagesRejected`, `MessagesDeadLettered` (of them `MessagesStateTooLarge`), `MessagesParked`,
 * `MessagesRetried`, `VersionConflicts`, `TurnErrors`. With Powertools Metrics they are
 * written as CloudWatch EMF when the handler publishes them (its `logMetrics` middleware, or
 * the worker handler's `metrics` option): no call to CloudWatch per turn.
 *
 * @example
 * import { Metrics } from '@aws-lambda-powertools/metrics';
 * const metrics = new Metrics({ namespace: 'bank', serviceName: 'worker' });
 * export const handler = workerHandler({ actors, store, queue, metrics, onTurn: turnMetrics(metrics) });
 */
export function turnMetrics(metrics: MetricsRecorder): TurnListener {
  return (turn) => {
    metrics.addMetric('TurnDuration', 'Milliseconds', turn.durationMs);
    for (const [name, field] of COUNTED) metrics.addMetric(name, 'Count', turn[field]);
    metrics.addMetric('TurnErrors', 'Count', turn.failed ? 1 : 0);
  };
}

/** The fields of {@link TurnStats} that count messages or commits. */
type CountField = {
  [K in keyof TurnStats]: TurnStats[K] extends number ? K : never;
}[keyof TurnStats];

/** The metrics {@link turnMetrics} counts, each from its field of {@link TurnStats}. */
const COUNTED: readonly (readonly [name: string, field: CountField])[] = [
  ['BatchSize', 'batchSize'],
  ['MessagesApplied', 'applied'],
  ['MessagesRejected', 'rejected'],
  ['MessagesStateTooLarge', 'stateTooLarge'],
  ['MessagesDeadLettered', 'deadLettered'],
  ['MessagesParked', 'parked'],
  ['MessagesRetried', 'retried'],
  ['VersionConflicts', 'versionConflicts'],
];
