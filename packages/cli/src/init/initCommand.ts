import { spawn } from 'node:child_process';
import { existsSync, readdirSync, rmSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { ParseArgsConfig } from 'node:util';
import { BatonError, ErrorCode } from '@baton/core';
import { scaffold } from './scaffold.ts';

export const INIT_USAGE = `Usage: baton init <folder> [options]

Creates a Baton app in a new folder: an actor with a durable timer, a live query, a page
(useQuery), a test (@baton/testing), a CDK stack (BatonApp), and the scripts dev, test,
synth and deploy. Then installs it with npm.

Options:
  --from <folder>   take every @baton/* package from the tarballs in <folder> (what
                    pnpm pack:all writes in Baton's repository) instead of the registry
  --no-install      write the files only
  -h, --help        this text

Example: baton init my-app && cd my-app && npm run dev
Until Baton is on npm: pnpm pack:all in its repository, then
         baton init my-app --from <repository>/packed`;

/**
 * The options {@link initCommand} reads (after `init`), as `parseArgs` would declare them:
 * `baton` reads past them, to tell `baton --from ../packed init …` that they go after `init`.
 */
export const INIT_OPTIONS = {
  from: { type: 'string' },
  'no-install': { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const satisfies NonNullable<ParseArgsConfig['options']>;

/**
 * `baton init <folder> [--from <tarballs>] [--no-install]`: scaffolds an app, then runs
 * `npm install` in it. `create-baton` (`npm create baton <folder>`) runs this too.
 *
 * @example
 * await initCommand(['my-app', '--from', '../baton/packed']);
 */
export async function initCommand(args: readonly string[]): Promise<void> {
  if (args.includes('-h') || args.includes('--help')) {
    console.log(INIT_USAGE);
    return;
  }
  const usage = (message: string) =>
    new BatonError(ErrorCode.INVALID_ARGUMENT, `${message}\n\n${INIT_USAGE}`);
  let dir: string | undefined;
  let from: string | undefined;
  let install = true;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '--from' || arg.startsWith('--from=')) {
      from = arg === '--from' ? args[++i] : arg.slice('--from='.length);
      if (!from) throw usage('--from needs the folder of the tarballs');
    } else if (arg === '--no-install') {
      install = false;
    } else if (arg.startsWith('-')) {
      throw usage(`unknown option ${arg}`);
    } else if (dir === undefined) {
      dir = arg;
    } else {
      throw usage(`one folder only, got "${dir}" and "${arg}"`);
    }
  }
  if (dir === undefined) throw usage('which folder? e.g. baton init my-app');
  const existed = existsSync(dir);
  const name = scaffold({ dir, ...(from === undefined ? {} : { from }) });
  console.log(`baton init: created ${name} in ${dir}`);
  if (install) {
    console.log('baton init: npm install…');
    try {
      await run('npm', ['install', '--no-audit', '--no-fund'], dir);
    } catch (error) {
      throw installFailed(error, { dir, existed, from });
    }
  }
  // A path that climbs out more than once reads better whole.
  const near = relative(process.cwd(), dir) || '.';
  const cd = near.startsWith('../..') ? dir : near;
  console.log(
    [
      '',
      'Next:',
      `  cd ${cd}`,
      ...(install ? [] : ['  npm install']),
      '  npm run dev      # the page, the WebSocket and the ingress on one port, the inspector on the next',
      '  npm test         # types, then the counter under simulated crashes',
      '  npm run synth    # the CDK stack, checked with cdk-nag, offline',
    ].join('\n'),
  );
}

/**
 * The error of an `npm install` that failed. With the registry's packages (no `--from`), what
 * init wrote is removed, so that `baton init` can run again in the same folder, and it says
 * where the packages come from until Baton is published; with tarballs, the app stays, and a
 * second `npm install` there finishes it.
 */
function installFailed(
  error: unknown,
  { dir, existed, from }: { dir: string; existed: boolean; from: string | undefined },
): BatonError {
  const failed = error instanceof Error ? error.message : String(error);
  if (from !== undefined) {
    return new BatonError(
      ErrorCode.UNAVAILABLE,
      `${failed}: the app is written; fix what npm printed, then run npm install in ${dir}`,
      { cause: error },
    );
  }
  // The folder was absent or empty: nothing of the user's is in it.
  if (existed) for (const entry of readdirSync(dir)) rmSync(join(dir, entry), { recursive: true });
  else rmSync(dir, { recursive: true, force: true });
  return new BatonError(
    ErrorCode.UNAVAILABLE,
    `${failed}; nothing is left in ${dir}. If npm found no @baton/* package (404), Baton is not on the registry yet: run pnpm pack:all in Baton's repository, then baton init ${dir} --from <repository>/packed; else fix what npm printed and run baton init ${dir} again`,
    { cause: error },
  );
}

function run(command: string, args: readonly string[], cwd: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env: npmEnvironment(process.env), stdio: 'inherit' });
    child.once('error', reject);
    child.once('exit', (code) =>
      code === 0
        ? resolve()
        : reject(
            new BatonError(
              ErrorCode.UNAVAILABLE,
              `${command} ${args.join(' ')} failed (${code}) in ${cwd}`,
            ),
          ),
    );
  });
}

/**
 * The environment npm runs in: this process's, less the setting pnpm gives the commands it runs
 * (`pnpm exec baton init`), which npm does not know and warns of ("Unknown env config").
 */
function npmEnvironment(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return Object.fromEntries(
    Object.entries(env).filter(
      ([name]) => name.toLowerCase() !== 'npm_config_verify_deps_before_run',
    ),
  );
}
