import type { Logger, LogLevel } from '@baton/core';

const ORDER: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 99 };
/** Fields every handler's `ctx.log` carries that say nothing to someone reading a terminal. */
const HIDDEN = new Set(['inboxPosition', 'traceId', 'spanId', 'parentSpanId']);

/**
 * A logger for a terminal: one line per entry — time, level, the actor, the message, then the
 * other fields as `name=value` — and an error's stack below it, indented. What `baton dev`
 * prints for the app's `ctx.log` and the engine; a message id is shown for warnings and errors
 * only (it names what to redrive).
 *
 * @example
 * readableLogger({ level: 'info' }).info('adding', { actor: 'counter/a', n: 1 });
 * // 12:03:04 info  counter/a: adding n=1
 */
export function readableLogger(
  options: { level?: LogLevel; write?: (line: string) => void; now?: () => Date } = {},
): Logger {
  const min = ORDER[options.level ?? 'info'];
  const write = options.write ?? ((line: string) => console.log(line));
  const now = options.now ?? (() => new Date());
  const entry =
    (level: Exclude<LogLevel, 'silent'>) =>
    (message: string, ...fields: Array<Record<string, unknown>>) => {
      if (ORDER[level] < min) return;
      const { actor, stack, messageId, ...rest } = Object.assign({}, ...fields) as Record<
        string,
        unknown
      >;
      const parts = [now().toTimeString().slice(0, 8), level.padEnd(5)];
      if (actor !== undefined) parts.push(`${String(actor)}:`);
      parts.push(message);
      for (const [name, value] of Object.entries(rest)) {
        if (!HIDDEN.has(name) && value !== undefined) parts.push(`${name}=${show(value)}`);
      }
      if (messageId !== undefined && ORDER[level] >= ORDER.warn) {
        parts.push(`messageId=${show(messageId)}`);
      }
      const stackLines = typeof stack === 'string' ? `\n${stack.replace(/^/gm, '    ')}` : '';
      write(`${parts.join(' ')}${stackLines}`);
    };
  return { debug: entry('debug'), info: entry('info'), warn: entry('warn'), error: entry('error') };
}

/** A string without spaces or quotes as it is; anything else as JSON. */
function show(value: unknown): string {
  if (typeof value === 'string' && /^[^\s"=]+$/.test(value)) return value;
  return JSON.stringify(value) ?? String(value);
}
