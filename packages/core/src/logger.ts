/**
 * What Baton logs through: a message with structured fields, at four levels.
 */
export interface Logger {
  debug(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

export type LogLevel = 'debug' | 'info' | 'warn' | 'error' | 'silent';

const ORDER: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 99 };

/**
 * A structured logger writing one JSON line per entry (the shape CloudWatch and Powertools use).
 *
 * @example
 * const log = jsonLogger({ level: 'info', fields: { service: 'bank' } });
 * log.info('started', { port: 3000 });
 */
export function jsonLogger(
  options: {
    level?: LogLevel;
    fields?: Record<string, unknown>;
    write?: (line: string) => void;
  } = {},
): Logger {
  const min = ORDER[options.level ?? 'info'];
  const write = options.write ?? ((line: string) => console.log(line));
  const entry =
    (level: Exclude<LogLevel, 'silent'>) => (message: string, fields?: Record<string, unknown>) => {
      if (ORDER[level] < min) return;
      write(JSON.stringify({ level, message, ...options.fields, ...fields }));
    };
  return { debug: entry('debug'), info: entry('info'), warn: entry('warn'), error: entry('error') };
}

/** A logger that drops everything. */
export const silentLogger: Logger = jsonLogger({ level: 'silent' });

/** A logger that adds `fields` to every entry of `logger`. */
export function childLogger(logger: Logger, fields: Record<string, unknown>): Logger {
  const wrap = (fn: Logger['info']) => (message: string, extra?: Record<string, unknown>) =>
    fn(message, { ...fields, ...extra });
  return {
    debug: wrap(logger.debug),
    info: wrap(logger.info),
    warn: wrap(logger.warn),
    error: wrap(logger.error),
  };
}
