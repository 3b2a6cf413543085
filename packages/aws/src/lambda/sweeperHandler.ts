import {
  createEngine,
  type EngineOptions,
  Sweeper,
  type SweeperOptions,
  type SweepResult,
} from '@baton/core/engine';

/**
 * The sweeper Lambda, run on a schedule: drains outboxes that no worker will revisit and logs an
 * alarm for any outbox item older than a day.
 *
 * @example
 * export const handler = sweeperHandler({ actors: [Account], store, queue });
 */
export function sweeperHandler(
  options: EngineOptions,
  sweeperOptions: SweeperOptions = {},
): () => Promise<SweepResult> {
  const sweeper = new Sweeper(createEngine(options), sweeperOptions);
  return () => sweeper.sweep();
}
