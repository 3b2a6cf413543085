/**
 * `baton dev`'s type check. esbuild strips types without checking them, so an app with a type
 * error runs until the wrong value meets its handler. The app's project is checked with its own
 * TypeScript in watch mode (`tsc --noEmit --watch -p <its tsconfig.json>`), one child process of
 * low priority for the whole session: after the first check, a save re-checks only what it
 * changed, in about half the time a fresh `tsc` takes or less. A report that comes while the
 * app rebuilds waits for the rebuild, so that it can say whether the app then runs.
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
 * Runs tsc (`process.argv[1]`, its arguments after it) until its standard input ends: when
 * `baton dev` ends, however it ends (a kill too), a watch it started does not outlive it.
 */
const UNTIL_PARENT_ENDS =
  "process.stdin.on('end', () => process.exit(0)).resume(); require(process.argv[1]);";

/** A line of `tsc --watch` that begins a check, and the one that ends it with its count. */
const CHECK_STARTS = / - (Starting compilation in watch mode|File change detected)\b/;
const CHECK_ENDS = / - Found (\d+) errors?\. Watching for file changes\.$/;

/**
 * Reads the output of `tsc --watch --pretty false --preserveWatchOutput` as it comes: each
 * check's error lines, ended by tsc's own count of them.
 *
 * @example
 * const reader = new WatchOutputReader();
 * for (const result of reader.push(chunk)) report(result);
 */
export class WatchOutputReader {
  #partial = '';
  #lines: string[] = [];

  /** The checks that `chunk` ends, in order. */
  push(chunk: string): TypeCheckResult[] {
    const lines = (this.#partial + chunk).split('\n');
    this.#partial = lines.pop() ?? '';
    const ended: TypeCheckResult[] = [];
    for (const raw of lines) {
      const line = raw.trimEnd();
      const end = CHECK_ENDS.exec(line);
      if (end) {
        const errors = Number(end[1]);
        ended.push({ errors, lines: errors === 0 ? [] : this.#lines });
        this.#lines = [];
      } else if (CHECK_STARTS.test(line)) {
        this.#lines = [];
      } else if (line.trim() !== '') {
        this.#lines.push(line);
      }
    }
    return ended;
  }

  /** What was read since the last check ended: the output of a tsc that stopped. */
  rest(): string {
    return [...this.#lines, this.#partial].join('\n');
  }
}

/**
 * Runs a project's check in watch mode: `changing()` when a source file changes, `check()`
 * after each build, `close()` on stop. It prints the errors of every check that finds some, and
 * once a check finds none after one that did, that they are fixed.
 */
export class TypeChecker {
  readonly #project: { readonly tsconfig: string; readonly tsc: string };
  readonly #log: (line: string) => void;
  #watching: ChildProcess | undefined;
  /** Whether the last check that finished found errors (undefined before the first). */
  #failing: boolean | undefined;
  /** A source file changed and its rebuild has not ended: reports wait for it. */
  #rebuilding = false;
  /** The newest report that waits for the rebuild. */
  #held: TypeCheckResult | undefined;
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

  /** A source file changed: the reports of checks wait until `check()` says it is rebuilt. */
  changing(): void {
    this.#rebuilding = true;
  }

  /**
   * After each build: prints a report that waited for it, and starts the watch if it does not
   * run (the first time, or after tsc stopped).
   */
  check(): void {
    this.#rebuilding = false;
    const held = this.#held;
    this.#held = undefined;
    if (held) this.#report(held);
    if (this.#closed || this.#watching) return;
    const { tsc, tsconfig } = this.#project;
    const args = ['--noEmit', '--watch', '--preserveWatchOutput', '--pretty', 'false'];
    const child = spawn(process.execPath, ['-e', UNTIL_PARENT_ENDS, tsc, ...args, '-p', tsconfig], {
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    this.#watching = child;
    try {
      // Below the app and the server: a first check may take seconds of both cores.
      if (child.pid !== undefined) setPriority(child.pid, 10);
    } catch {
      // Not allowed here: it runs at the same priority.
    }
    // tsc's checks come on its standard output; its standard error matters only if it stops.
    const reader = new WatchOutputReader();
    let stderr = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      for (const result of reader.push(String(chunk))) this.#ended(result);
    });
    child.stderr!.on('data', (chunk: Buffer) => {
      stderr += chunk;
    });
    child.on('error', (error) => {
      if (this.#watching === child) this.#log(`baton dev: could not check types: ${error.message}`);
    });
    child.on('close', (code) => {
      if (this.#watching !== child) return; // closed
      this.#watching = undefined;
      // A watch ends only when tsc cannot go on (a tsconfig it cannot read): the next build
      // starts another.
      this.#ended(readTscOutput(`${reader.rest()}\n${stderr}`, code ?? 1));
    });
  }

  close(): void {
    this.#closed = true;
    const watching = this.#watching;
    this.#watching = undefined;
    watching?.kill();
  }

  #ended(result: TypeCheckResult): void {
    if (this.#rebuilding) this.#held = result;
    else this.#report(result);
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
