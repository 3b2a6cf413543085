import {
  createEngine,
  type EngineOptions,
  SWEEP_LOG,
  Sweeper,
  type SweeperOptions,
  type SweepResult,
} from '@baton/core/engine';
import type { LambdaInvocation } from './lambdaInvocation.ts';

/**
 * How long one sweep works at most (its timers, then outboxes): under the schedule's minute, so
 * that a sweep that falls behind does not overlap the next one, which takes up the rest.
 */
export const SWEEP_BUDGET_MS = 45_000;

/**
 * The sweeper lag past which it is behind. A healthy one lags up to about 3 minutes: a send
 * waits its `minAgeMs` (a minute), the schedule's minute and a sweep's 45 s before it is
 * retired; 4 leaves a minute before the queue's 5-minute dedupe window. `BatonApp`'s
 * `sweeperLag` alarm and `baton status` both use it.
 */
export const SWEEPER_LAG_ALARM_MS = 4 * 60_000;

/** What a sweep leaves of the invocation's time for its last calls and its log line. */
const TIMEOUT_MARGIN_MS = 10_000;

/** The part of the Lambda context the sweeper reads (the worker reads the same). */
export type SweeperInvocation = LambdaInvocation;

/**
 * The sweeper Lambda, run on a schedule: drains outboxes that no worker will revisit and logs an
 * alarm for any outbox item older than a day. A sweep works for at most {@link SWEEP_BUDGET_MS}
 * (or `sweeperOptions.budgetMs`), and less when the invocation's time runs out sooner. Each
 * sweep ends with one info line, {@link SWEEP_LOG} with the result's counts and `lagMs`:
 * `BatonApp` alarms when that lag nears the queue's 5-minute dedupe window, or when no sweep
 * logged at all.
 *
 * @example
 * export const handler = sweeperHandler({ actors: [Account], store, queue });
 */
export function sweeperHandler(
  options: EngineOptions,
  sweeperOptions: SweeperOptions = {},
): (event?: unknown, context?: SweeperInvocation) => Promise<SweepResult> {
  const engine = createEngine(options);
  const sweeper = new Sweeper(engine, sweeperOptions);
  const budget = sweeperOptions.budgetMs ?? SWEEP_BUDGET_MS;
  return async (_event, context) => {
    const remaining = context ? context.getRemainingTimeInMillis() - TIMEOUT_MARGIN_MS : budget;
    const result = await sweeper.sweep({ budgetMs: Math.max(0, Math.min(budget, remaining)) });
    engine.logger.info(SWEEP_LOG, { ...result });
    return result;
  };
}
