/**
 * `baton dev`'s type check. esbuild strips types without checking them, so an app with a type
 * error runs until the wrong value meets its handler. After each build the app's project is
 * checked with its own TypeScript (`tsc --noEmit -p <its tsconfig.json>`) in a child process of
 * low priority, while the app runs. A change while a check runs stops it and starts another.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { setPriority } from 'node:os';
import { dirname, join } from 'node:path';

/** Where an app's types are checked from, or why they are not. */
export type TypeProject =
  | { readonly tsconfig: string; readonly tsc: string }
  | { readonly unchecked: string };

/** How many lines of a check's errors are printed; the rest is counted. */
const MAX_LINES = 40;

/**
 * The project `entry` belongs to: the first `tsconfig.json` in its folder or a folder above,
 * up to its package's folder (the first holding a `package.json`), and the TypeScript compiler
 * installed for it. `shortPath` names paths in the reason for none.
 */
export function findTypeProject(entry: string, shortPath: (path: string) => string): TypeProject {
  for (let dir = dirname(entry); ; dir = dirname(dir)) {
    const tsconfig = join(dir, 'tsconfig.json');
    if (existsSync(tsconfig)) {
      try {
        return { tsconfig, tsc: createRequire(tsconfig).resolve('typescript/bin/tsc') };
      } catch {
        return {
          unchecked: `TypeScript is not installed for ${shortPath(tsconfig)} (npm install --save-dev typescript)`,
        };
      }
    }
    if (existsSync(join(dir, 'package.json')) || dirname(dir) === dir) {
      return {
        unchecked: `no tsconfig.json in ${shortPath(dir)} or below it on the way to ${shortPath(entry)}`,
      };
    }
  }
}

/** What one check found: its error count and the lines to print (none when it found none). */
export interface TypeCheckResult {
  readonly errors: number;
  readonly lines: readonly string[];
}

/**
 * Reads `tsc --pretty false`'s output: an error is a line with `error TS<n>:` (the lines
 * indented under it go on with it). Output with no such line from a failed run (a tsconfig tsc
 * cannot read, say) is kept whole as one error.
 */
export function readTscOutput(output: string, exitCode: number | null): TypeCheckResult {
  const lines = output.split('\n').filter((line) => line.trim() !== '');
  const errors = lines.filter((line) => /^\S.*\berror TS\d+:/.test(line)).length;
  if (errors === 0 && exitCode === 0) return { errors: 0, lines: [] };
  return { errors: Math.max(errors, 1), lines };
}

/**
 * Runs a project's checks one at a time: `check()` after each build, `close()` on stop. It
 * prints the errors of every check that finds some, and once a check finds none after one that
 * did, that they are fixed.
 */
export class TypeChecker {
  readonly #project: { readonly tsconfig: string; readonly tsc: string };
  readonly #log: (line: string) => void;
  #running: ChildProcess | undefined;
  /** Whether the last check that finished found errors (undefined before the first). */
  #failing: boolean | undefined;
  #closed = false;

  readonly #appRuns: () => boolean;

  /** `appRuns`: whether the app is up, which the report of errors says. */
  constructor(
    project: { tsconfig: string; tsc: string },
    log: (line: string) => void,
    appRuns: () => boolean = () => true,
  ) {
    this.#project = project;
    this.#log = log;
    this.#appRuns = appRuns;
  }

  /** Starts a check, stopping one still running (it checked files that have changed since). */
  check(): void {
    if (this.#closed) return;
    this.#stop();
    const { tsc, tsconfig } = this.#project;
    const child = spawn(process.execPath, [tsc, '--noEmit', '-p', tsconfig, '--pretty', 'false'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.#running = child;
    try {
      // Below the app and the server: the check may take seconds of both cores.
      if (child.pid !== undefined) setPriority(child.pid, 10);
    } catch {
      // Not allowed here: it runs at the same priority.
    }
    let output = '';
    child.stdout!.on('data', (chunk) => (output += chunk));
    child.stderr!.on('data', (chunk) => (output += chunk));
    child.on('error', (error) => {
      if (this.#running === child) this.#log(`baton dev: could not check types: ${error.message}`);
    });
    child.on('close', (code) => {
      if (this.#running !== child) return; // stopped for a newer check, or closed
      this.#running = undefined;
      this.#report(readTscOutput(output, code));
    });
  }

  close(): void {
    this.#closed = true;
    this.#stop();
  }

  #stop(): void {
    const running = this.#running;
    this.#running = undefined;
    running?.kill();
  }

  #report({ errors, lines }: TypeCheckResult): void {
    const was = this.#failing;
    this.#failing = errors > 0;
    if (errors === 0) {
      if (was !== false) {
        this.#log(was ? 'baton dev: the type errors are fixed' : 'baton dev: no type errors');
      }
      return;
    }
    const shown = lines.slice(0, MAX_LINES).map((line) => `  ${line}`);
    const more = lines.length - shown.length;
    this.#log(
      [
        `baton dev: ${errors} type error${errors === 1 ? '' : 's'} (${this.#appRuns() ? 'the app runs anyway' : 'the app is not running either: see above'}; fix ${errors === 1 ? 'it' : 'them'} and save):`,
        ...shown,
        ...(more > 0
          ? [`  … ${more} more lines: npx tsc --noEmit -p ${this.#project.tsconfig}`]
          : []),
      ].join('\n'),
    );
  }
}
