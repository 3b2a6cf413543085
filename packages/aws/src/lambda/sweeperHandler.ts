import {
  createEngine,
  type EngineOptions,
  SWEEP_LOG,
  Sweeper,
  type SweeperOptions,
  type SweepResult,
} from '@baton/core/engine';

/**
 * The sweeper Lambda, run on a schedule: drains outboxes that no worker will revisit and logs an
 * alarm for any outbox item older than a day. Each sweep ends with one info line,
 * {@link SWEEP_LOG} with the result's counts and `lagMs`: `BatonApp` alarms when that lag nears
 * the queue's 5-minute dedupe window, or when no sweep logged at all.
 *
 * @example
 * export const handler = sweeperHandler({ actors: [Account], store, queue });
 */
export function sweeperHandler(
  options: EngineOptions,
  sweeperOptions: SweeperOptions = {},
): () => Promise<SweepResult> {
  const engine = createEngine(options);
  const sweeper = new Sweeper(engine, sweeperOptions);
  return async () => {
    const result = await sweeper.sweep();
    engine.logger.info(SWEEP_LOG, { ...result });
    return result;
  };
}
