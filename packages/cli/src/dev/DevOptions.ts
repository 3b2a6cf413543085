import { existsSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { BatonError, ErrorCode } from '@baton/core';

/** What `baton dev` runs, as {@link parseDevArgs} reads it from the command line. */
export interface DevOptions {
  /** The module whose default export is `defineApp(…)`, absolute. */
  readonly entry: string;
  /** @default 3000 (0: any free port) */
  readonly port: number;
  /** The embedded backend's journal directory; `undefined` with `--in-memory`. */
  readonly dataDir: string | undefined;
  readonly backend: 'embedded' | 'local-aws';
}

export const USAGE = `Usage: baton dev <app entry> [options]

Runs an app locally on one port: its page (web/page.tsx beside the entry), the WebSocket,
the HTTP ingress (POST /send, POST /ask, GET /outcome/<id>) and the inspector (/_baton).
The entry is a module whose default export is defineApp({ actors, queries }).

Options:
  --port <n>          the port on 127.0.0.1 (default 3000; 0 picks a free one)
  --data-dir <dir>    where the embedded backend keeps its data
                      (default: .baton in the folder above the entry's)
  --in-memory         keep nothing on disk: state ends with the process
  --backend <name>    embedded (default) or local-aws (DynamoDB Local + ElasticMQ; needs Java)
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
  };
}
