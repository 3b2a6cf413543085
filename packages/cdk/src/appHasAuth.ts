import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';

/** What this check uses of esbuild's API (the project's own esbuild, as the bundling's). */
interface Esbuild {
  buildSync(options: Record<string, unknown>): { outputFiles: { text: string }[] };
}

const MARK = 'baton-app-auth:';

/**
 * Whether the app module at `entry` default-exports an app with an `auth` hook, found at synth
 * so that `webSocketAuth: 'app'` without one fails there rather than at the WebSocket
 * function's cold start. The module is bundled with the project's esbuild as the functions
 * are (the AWS SDK left out) and loaded in a child process. `undefined` when that cannot tell:
 * no esbuild where the entry resolves packages, or a module that fails to load outside its
 * functions (one that reads their environment as it loads); the cold start checks it then.
 *
 * @example
 * appHasAuth('/app/src/app.ts'); // true: it exports defineApp({ actors, auth })
 */
export function appHasAuth(entry: string): boolean | undefined {
  let code: string;
  try {
    const esbuild = createRequire(entry)('esbuild') as Esbuild;
    const contents = [
      `import app from ${JSON.stringify(entry)};`,
      `process.stdout.write('\\n${MARK}' + typeof app?.auth + '\\n');`,
      // A module that keeps the loop alive (a timer, a server) must not hold the synth.
      'process.exit(0);',
    ].join('\n');
    const { outputFiles } = esbuild.buildSync({
      stdin: { contents, resolveDir: dirname(entry), sourcefile: 'baton-app-auth.mjs' },
      bundle: true,
      write: false,
      format: 'esm',
      platform: 'node',
      external: ['@aws-sdk/*'],
      mainFields: ['module', 'main'],
      banner: {
        js: "import { createRequire as __batonRequire } from 'node:module'; const require = __batonRequire(import.meta.url);",
      },
      logLevel: 'silent',
    });
    code = outputFiles[0]!.text;
  } catch {
    return undefined;
  }
  try {
    const output = execFileSync(process.execPath, ['--input-type=module'], {
      input: code,
      cwd: dirname(entry),
      encoding: 'utf8',
      stdio: ['pipe', 'pipe', 'ignore'],
      timeout: 60_000,
    });
    const found = output
      .split('\n')
      .reverse()
      .find((line) => line.startsWith(MARK))
      ?.slice(MARK.length);
    return found === undefined ? undefined : found === 'function';
  } catch {
    return undefined;
  }
}
