/**
 * `baton dev` as a user runs it: a real child process (the CLI's source through tsx) on a free
 * loopback port, and what the tests need around it.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { cpSync, mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';

export const ROOT = new URL('../../', import.meta.url).pathname;
const BIN = join(ROOT, 'packages/cli/src/bin.ts');

export interface DevProcess {
  readonly child: ChildProcess;
  /** `http://127.0.0.1:<port>` from the readiness line: the app's page, WebSocket and ingress. */
  readonly origin: string;
  /** The inspector's origin (`http://127.0.0.1:<its port>`), from its readiness line. */
  readonly inspector: string;
  /** Everything printed so far (stdout and stderr). */
  output(): string;
  /** What it printed to stderr so far. */
  stderr(): string;
  /**
   * Sends `signal` (to its whole process group with `ownProcessGroup`, as a terminal's Ctrl-C
   * does) and resolves with the exit code (null if it died by a signal).
   */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

export interface DevProcessOptions {
  /** How long to wait for the readiness line. @default 30_000 */
  readonly timeoutMs?: number;
  /** Added to the inherited environment. */
  readonly env?: Readonly<Record<string, string>>;
  /**
   * Runs it in a process group of its own, which `stop()` signals as a whole: what a terminal
   * does on Ctrl-C, reaching the app process (and anything else in the group) too.
   */
  readonly ownProcessGroup?: boolean;
}

/**
 * Runs `baton dev <args>` (on a free port, the inspector on any) to its end, for an app that is
 * not to start: its exit code and everything it printed. Killed if it is still running after
 * `timeoutMs` (it started after all), the code then null.
 */
export async function runDevToExit(
  args: readonly string[],
  timeoutMs = 30_000,
): Promise<{ code: number | null; output: string }> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', BIN, 'dev', ...args, '--port', '0', '--in-memory'],
    { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  clearTimeout(timer);
  return { code, output };
}

/** A free port on 127.0.0.1. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer().once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/**
 * Starts `baton dev <args>` and waits for its readiness line. Given a `--port` and no
 * `--inspector-port`, the inspector takes any free port: the port after a free one may be taken.
 */
export async function startDevProcess(
  args: readonly string[],
  options: DevProcessOptions = {},
): Promise<DevProcess> {
  const { timeoutMs = 30_000, ownProcessGroup = false } = options;
  const inspectorPort =
    args.includes('--port') && !args.includes('--inspector-port') ? ['--inspector-port', '0'] : [];
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', BIN, 'dev', ...args, ...inspectorPort],
    {
      cwd: ROOT,
      env: { ...process.env, ...options.env },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: ownProcessGroup,
    },
  );
  let output = '';
  let stderr = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => {
    output += chunk;
    stderr += chunk;
  });
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code) => resolve(code)),
  );
  const [origin, inspector] = await new Promise<[string, string]>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL'); // not left running when the test gives up on it
      reject(new Error(`no readiness line in ${timeoutMs} ms:\n${output}`));
    }, timeoutMs);
    const check = () => {
      const match = /baton dev: ready at (http:\/\/127\.0\.0\.1:\d+)\//.exec(output);
      const inspectorLine = /\n {2}inspector {2}(http:\/\/127\.0\.0\.1:\d+)\//.exec(output);
      if (match && inspectorLine) {
        clearTimeout(timer);
        resolve([match[1]!, inspectorLine[1]!]);
      }
    };
    child.stdout!.on('data', check);
    exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`baton dev exited (${code}) before it was ready:\n${output}`));
    });
  });
  return {
    child,
    origin,
    inspector,
    output: () => output,
    stderr: () => stderr,
    stop(signal = 'SIGINT') {
      if (child.exitCode === null && child.signalCode === null) {
        if (ownProcessGroup) process.kill(-child.pid!, signal);
        else child.kill(signal);
      }
      return exited;
    },
  };
}

/**
 * A copy of a fixture app (`fixtures/<name>`) inside the repository, so that its imports of
 * `@baton/core` and `zod` resolve, in a folder of its own that a test may edit. It is a package
 * of its own, without a tsconfig.json (its types are not checked) unless the test writes one:
 * `baton dev` would otherwise check it with the repository's, and so the whole repository.
 */
export function copyFixtureApp(name = 'counter'): string {
  const dir = mkdtempSync(join(ROOT, 'tests/dev/.work-'));
  cpSync(join(ROOT, 'tests/dev/fixtures', name), dir, { recursive: true });
  writeFileSync(
    join(dir, 'package.json'),
    `${JSON.stringify({ private: true, type: 'module' })}\n`,
  );
  return dir;
}

/** POSTs JSON (with `headers` besides its content type) and returns the status and the parsed body. */
export async function postJson(
  url: string,
  body: unknown,
  headers: Readonly<Record<string, string>> = {},
): Promise<{ status: number; body: any }> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: await response.json() };
}

/** This run's inspector token, read where the inspector's page has it (`inspector`: its origin). */
export async function inspectorToken(inspector: string): Promise<string> {
  const html = await (await fetch(`${inspector}/_baton`)).text();
  const token = /<meta name="baton-token" content="([^"]+)">/.exec(html)?.[1];
  if (token === undefined) throw new Error(`no token in the inspector's page:\n${html}`);
  return token;
}

/**
 * POSTs one of the inspector's actions (`/_baton/<action>`) with this run's token, to the
 * inspector's origin.
 */
export async function inspectorAction(
  inspector: string,
  action: string,
  body: unknown,
): Promise<{ status: number; body: any }> {
  const token = await inspectorToken(inspector);
  return postJson(`${inspector}/_baton/${action}`, body, { 'x-baton-token': token });
}
