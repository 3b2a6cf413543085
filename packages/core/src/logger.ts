/**
 * What Baton logs through: a message with structured fields, at four levels. Baton passes one
 * object of fields; the rest parameter lets a Powertools for AWS Lambda `Logger` be one as it is.
 */
export interface Logger {
  debug(message: string, ...fields: Array<Record<string, unknown>>): void;
  info(message: string, ...fields: Array<Record<string, unknown>>): void;
  warn(message: string, ...fields: Array<Record<string, unknown>>): void;
  error(message: string, ...fields: Array<Record<string, unknown>>): void;
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
  const write = options.write ?? stdoutLine;
  return atEachLevel((level) => (message, ...fields) => {
    if (ORDER[level] < min) return;
    write(JSON.stringify(Object.assign({ level, message }, options.fields, ...fields)));
  });
}

/** A logger whose method of each level is the one `entry` makes for it. */
function atEachLevel(entry: (level: keyof Logger) => Logger[keyof Logger]): Logger {
  return { debug: entry('debug'), info: entry('info'), warn: entry('warn'), error: entry('error') };
}

/**
 * Writes `line` to stdout as it is. Not through `console`: on Lambda, the runtime prefixes what
 * `console` writes with the time, request id and level, and a prefixed line is no longer JSON to
 * CloudWatch — whose metric filters (the alarms BatonApp makes from log lines) read `$.message`.
 * Powertools' Logger writes past `console` for the same reason. Where there is no stdout (a
 * browser), `console.log`.
 */
function stdoutLine(line: string): void {
  const stdout = (globalThis as { process?: { stdout?: { write?: (text: string) => unknown } } })
    .process?.stdout;
  if (typeof stdout?.write === 'function') stdout.write(`${line}\n`);
  else console.log(line);
}

/** A logger that drops everything. */
export const silentLogger: Logger = /* @__PURE__ */ jsonLogger({ level: 'silent' });

/** A logger that adds `fields` to every entry of `logger`. */
export function childLogger(logger: Logger, fields: Record<string, unknown>): Logger {
  // Called as methods: a class-based logger (a Powertools `Logger`) needs its `this`.
  return atEachLevel(
    (level) =>
      (message, ...extra) =>
        logger[level](message, Object.assign({}, fields, ...extra)),
  );
}
