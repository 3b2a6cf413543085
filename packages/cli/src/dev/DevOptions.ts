import { existsSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { BatonError, ErrorCode, type LogLevel } from '@baton/core';

const LOG_LEVELS: readonly LogLevel[] = ['debug', 'info', 'warn', 'error', 'silent'];

/** What `baton dev` runs, as {@link parseDevArgs} reads it from the command line. */
export interface DevOptions {
  /** The module whose default export is `defineApp(…)`, absolute. */
  readonly entry: string;
  /** @default 3000 (0: any free port) */
  readonly port: number;
  /** The embedded backend's journal directory; `undefined` with `--in-memory`. */
  readonly dataDir: string | undefined;
  readonly backend: 'embedded' | 'local-aws';
  /**
   * Origins besides its own (`http://127.0.0.1:<port>`, `localhost`, `[::1]`) whose pages may
   * call it, e.g. a page served by another dev server; each as `URL.origin`.
   * @default [] (its own pages, and clients that send no Origin, such as curl)
   */
  readonly allowOrigins?: readonly string[];
  /** What the app's `ctx.log` and the engine print. @default 'info' */
  readonly logLevel?: LogLevel;
}

export const USAGE = `Usage: baton dev <app entry> [options]

Runs an app locally on one port: its page (web/page.tsx beside the entry), the WebSocket,
the HTTP ingress (POST /send, POST /ask, GET /outcome?to=…&idempotencyKey=…) and the inspector (/_baton).
The entry is a module whose default export is defineApp({ actors, queries }).

Options:
  --port <n>          the port on 127.0.0.1 (default 3000; 0 picks a free one)
  --data-dir <dir>    where the embedded backend keeps its data
                      (default: .baton in the folder above the entry's)
  --in-memory         keep nothing on disk: state ends with the process
  --backend <name>    embedded (default) or local-aws (DynamoDB Local + ElasticMQ; needs Java)
  --allow-origin <o>  also let pages on origin <o> (e.g. http://localhost:5173) call the app;
                      repeat for more. By default only pages baton dev serves itself may,
                      and clients that send no Origin (curl, scripts)
  --log-level <l>     what the app's ctx.log and Baton print: debug, info (default),
                      warn, error or silent
  -h, --help          this text

Example: baton dev src/app.ts --port 3000`;

/** The default data directory: `.baton` in the app's folder (the entry's folder's parent). */
export function defaultDataDir(entry: string): string {
  return join(dirname(dirname(entry)), '.baton');
}

/**
 * Reads `baton dev`'s arguments (those after `dev`). Throws INVALID_ARGUMENT with what to do for
 * anything it cannot use.
 *
 * @example
 * parseDevArgs(['src/app.ts', '--port', '4000'], process.cwd()).port; // 4000
 */
export function parseDevArgs(args: readonly string[], cwd: string): DevOptions {
  const usage = (message: string) =>
    new BatonError(ErrorCode.INVALID_ARGUMENT, `${message}\n\n${USAGE}`);
  let entry: string | undefined;
  let port = 3000;
  let dataDir: string | undefined;
  let inMemory = false;
  let backend: DevOptions['backend'] = 'embedded';
  const allowOrigins: string[] = [];
  let logLevel: LogLevel = 'info';
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    const [flag, inline] = arg.startsWith('--') ? arg.split(/=(.*)/s, 2) : [arg, undefined];
    const value = () => {
      const next = inline ?? args[++i];
      if (next === undefined || next.startsWith('--')) throw usage(`${flag} needs a value`);
      return next;
    };
    switch (flag) {
      case '--port': {
        const text = value();
        port = Number(text);
        if (!/^\d+$/.test(text) || port > 65_535) {
          throw usage(`--port must be a port number (0–65535), got "${text}"`);
        }
        break;
      }
      case '--data-dir':
        dataDir = resolve(cwd, value());
        break;
      case '--in-memory':
        inMemory = true;
        break;
      case '--backend': {
        const name = value();
        if (name !== 'embedded' && name !== 'local-aws') {
          throw usage(`--backend must be embedded or local-aws, got "${name}"`);
        }
        backend = name;
        break;
      }
      case '--allow-origin': {
        const text = value();
        const origin = parseOrigin(text);
        if (origin === undefined) {
          throw usage(
            `--allow-origin takes an origin such as http://localhost:5173 (scheme, host, port; no path), got "${text}"`,
          );
        }
        allowOrigins.push(origin);
        break;
      }
      case '--log-level': {
        const level = value();
        if (!LOG_LEVELS.includes(level as LogLevel)) {
          throw usage(`--log-level must be one of ${LOG_LEVELS.join(', ')}, got "${level}"`);
        }
        logLevel = level as LogLevel;
        break;
      }
      default:
        if (arg.startsWith('-')) throw usage(`unknown option ${arg}`);
        if (entry !== undefined) throw usage(`one app entry only, got "${entry}" and "${arg}"`);
        entry = resolve(cwd, arg);
    }
  }
  if (entry === undefined) throw usage('which app? Name its entry module, e.g. src/app.ts');
  if (!existsSync(entry) || !statSync(entry).isFile()) {
    throw usage(`no file ${entry}: name the module that default-exports defineApp(…)`);
  }
  if (inMemory && dataDir !== undefined)
    throw usage('--in-memory and --data-dir exclude each other');
  if (backend === 'local-aws' && dataDir !== undefined) {
    throw usage(
      '--data-dir is for the embedded backend; local-aws keeps its data in the emulators',
    );
  }
  return {
    entry,
    port,
    dataDir: inMemory || backend === 'local-aws' ? undefined : (dataDir ?? defaultDataDir(entry)),
    backend,
    allowOrigins,
    logLevel,
  };
}

/** `URL.origin` of an http(s) origin written alone (a trailing `/` allowed), else undefined. */
function parseOrigin(text: string): string | undefined {
  if (!URL.canParse(text)) return undefined;
  const url = new URL(text);
  const bare = url.pathname === '/' && !url.search && !url.hash && !url.username && !url.password;
  return (url.protocol === 'http:' || url.protocol === 'https:') && bare ? url.origin : undefined;
}
