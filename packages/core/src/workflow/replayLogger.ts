import { type Logger, silentLogger } from '../logger.ts';
import type { Replayer } from './Replayer.ts';

/**
 * A run's `ctx.log`. A line the run logs while it replays its history (a cold worker runs it
 * again from the start) was logged when the run first came there, so it is left out: the run
 * logs once per line, as it goes past where it had logged (see `Replayer.logsLine`). The turn's
 * logger is looked up at each line, so a logger a run keeps (`const { log } = ctx`) logs with
 * the turn it is in.
 */
export function replayLogger(replayer: Replayer): Logger {
  const at =
    (level: keyof Logger) =>
    (message: string, ...fields: Array<Record<string, unknown>>): void => {
      if (replayer.logsLine()) (replayer.host?.log ?? silentLogger)[level](message, ...fields);
    };
  return { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}
