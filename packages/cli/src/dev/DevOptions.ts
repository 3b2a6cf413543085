import { existsSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { type ParseArgsConfig, parseArgs } from 'node:util';
import { BatonError, ErrorCode, type LogLevel } from '@baton/core';

const LOG_LEVELS: readonly LogLevel[] = ['debug', 'info', 'warn', 'error', 'silent'];

/** What `baton dev` runs, as {@link parseDevArgs} reads it from the command line. */
export interface DevOptions {
  /** The module whose default export is `defineApp(…)`, absolute. */
  readonly entry: string;
  /** @default 3000 (0: any free port) */
  readonly port: number;
  /**
   * The inspector's own port (127.0.0.1): another origin than the app's page, so that no script
   * on that page can open the inspector and read its token.
   * @default port + 1 (0 when port is 0: any free port)
   */
  readonly inspectorPort?: number;
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
  /** Whether each build's types are checked (see TypeChecker.ts). @default true */
  readonly typeCheck?: boolean;
}

export const USAGE = `Usage: baton dev <app entry> [options]

Runs an app locally on one port: its page (web/page.tsx beside the entry), the WebSocket and
the HTTP ingress (POST /send, POST /ask, GET /outcome?to=…&idempotencyKey=…); and the inspector
on a port of its own (the next one), out of reach of the scripts on the app's page.
The entry is a module whose default export is defineApp({ actors, queries }).

Options:
  --port <n>          the app's port on 127.0.0.1 (default 3000; 0 picks a free one)
  --inspector-port <n>  the inspector's port on 127.0.0.1 (default: the app's port + 1;
                      0 picks a free one, as it does when --port is 0)
  --data-dir <dir>    where the embedded backend keeps its data
                      (default: .baton in the folder above the entry's)
  --in-memory         keep nothing on disk: state ends with the process
  --backend <name>    embedded (default) or local-aws (DynamoDB Local + ElasticMQ; needs Java)
  --allow-origin <o>  also let pages on origin <o> (e.g. http://localhost:5173) call the app;
                      repeat for more. By default only pages baton dev serves itself may,
                      and clients that send no Origin (curl, scripts)
  --log-level <l>     what the app's ctx.log and Baton print: debug, info (default),
                      warn, error or silent
  --typecheck <on|off>  check the app's types with its tsconfig.json after each change
                      (default on; the app runs with type errors too)
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
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(args);
  } catch (error) {
    // node:util's own message names the option: "Unknown option '--prot'…",
    // "Option '--port <value>' argument missing".
    throw usage(error instanceof Error ? error.message : String(error));
  }
  const { values, positionals } = parsed;
  if (positionals.length > 1) {
    throw usage(`one app entry only, got "${positionals[0]}" and "${positionals[1]}"`);
  }
  const entry = positionals[0] === undefined ? undefined : resolve(cwd, positionals[0]);
  const port = Number(values.port ?? 3000);
  if (values.port !== undefined && (!/^\d+$/.test(values.port) || port > 65_535)) {
    throw usage(`--port must be a port number (0–65535), got "${values.port}"`);
  }
  const inspectorPort =
    values['inspector-port'] === undefined
      ? port === 0
        ? 0
        : port + 1
      : Number(values['inspector-port']);
  if (
    values['inspector-port'] !== undefined &&
    (!/^\d+$/.test(values['inspector-port']) || inspectorPort > 65_535)
  ) {
    throw usage(
      `--inspector-port must be a port number (0–65535), got "${values['inspector-port']}"`,
    );
  }
  if (inspectorPort > 65_535) {
    throw usage(
      `the inspector's port is the app's + 1 by default, and --port ${port} has none above it: pass --inspector-port <n> too`,
    );
  }
  if (inspectorPort !== 0 && inspectorPort === port) {
    throw usage(
      `--inspector-port ${inspectorPort} is the app's port too: the inspector needs a port of its own (another origin than the app's page), e.g. --inspector-port ${port === 65_535 ? port - 1 : port + 1}`,
    );
  }
  const dataDir = values['data-dir'] === undefined ? undefined : resolve(cwd, values['data-dir']);
  const inMemory = values['in-memory'] ?? false;
  const backend = values.backend ?? 'embedded';
  if (backend !== 'embedded' && backend !== 'local-aws') {
    throw usage(`--backend must be embedded or local-aws, got "${backend}"`);
  }
  const allowOrigins = (values['allow-origin'] ?? []).map((text) => {
    const origin = parseOrigin(text);
    if (origin === undefined) {
      throw usage(
        `--allow-origin takes an origin such as http://localhost:5173 (scheme, host, port; no path), got "${text}"`,
      );
    }
    return origin;
  });
  const logLevel = (values['log-level'] ?? 'info') as LogLevel;
  if (!LOG_LEVELS.includes(logLevel)) {
    throw usage(`--log-level must be one of ${LOG_LEVELS.join(', ')}, got "${logLevel}"`);
  }
  const typeCheck = values.typecheck ?? 'on';
  if (typeCheck !== 'on' && typeCheck !== 'off') {
    throw usage(`--typecheck must be on or off, got "${typeCheck}"`);
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
    inspectorPort,
    dataDir: inMemory || backend === 'local-aws' ? undefined : (dataDir ?? defaultDataDir(entry)),
    backend,
    allowOrigins,
    logLevel,
    typeCheck: typeCheck === 'on',
  };
}

/**
 * The options `baton dev` takes (after its word), as `parseArgs` reads them: `baton` reads past
 * them too, to tell `baton --backend local-aws dev …` that they go after `dev`.
 */
export const DEV_OPTIONS = {
  port: { type: 'string' },
  'inspector-port': { type: 'string' },
  'data-dir': { type: 'string' },
  'in-memory': { type: 'boolean' },
  backend: { type: 'string' },
  'allow-origin': { type: 'string', multiple: true },
  'log-level': { type: 'string' },
  typecheck: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const satisfies NonNullable<ParseArgsConfig['options']>;

/** `baton dev`'s options, strictly: an unknown option or a missing value throws. */
function parse(args: readonly string[]) {
  return parseArgs({
    args: [...args],
    strict: true,
    allowPositionals: true,
    options: DEV_OPTIONS,
  });
}

/** `URL.origin` of an http(s) origin written alone (a trailing `/` allowed), else undefined. */
function parseOrigin(text: string): string | undefined {
  if (!URL.canParse(text)) return undefined;
  const url = new URL(text);
  const bare = url.pathname === '/' && !url.search && !url.hash && !url.username && !url.password;
  return (url.protocol === 'http:' || url.protocol === 'https:') && bare ? url.origin : undefined;
}
