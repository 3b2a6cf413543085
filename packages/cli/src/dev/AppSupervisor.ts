import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { toBatonError } from '@baton/core';
import { type AppPorts, AppProcess } from './AppProcess.ts';
import { buildErrorText, bundleApp } from './bundle.ts';
import type { ChildConfig } from './protocol.ts';

/** How long a request waits for the app process to be (back) up. */
const WAIT_MS = 15_000;

/**
 * Keeps one app process running: builds the app, starts it, restarts it when it dies (a crash,
 * a SIGKILL) and replaces it when the code changes, one launch at a time so that two app
 * processes never run at once. Requests ask `ports()`, which waits while the app is
 * (re)starting. A build or start failure is printed and waits for the next change.
 */
export class AppSupervisor {
  readonly #entry: string;
  readonly #config: ChildConfig;
  readonly #log: (line: string) => void;
  readonly #dir = mkdtempSync(join(tmpdir(), 'baton-dev-'));
  #current: AppProcess | undefined;
  #generation = 0;
  #waiters = new Set<() => void>();
  #ports: AppPorts | undefined;
  /** Launches run one after the other, in this chain. */
  #launches: Promise<void> = Promise.resolve();
  /** Launches asked for and not yet finished: while there are some, `ports()` waits. */
  #pendingLaunches = 0;
  #closed = false;
  /**
   * The first launch came up. Until then a failure ends `baton dev` (see {@link start}), so it
   * is told without "save to try again": nothing is watched yet.
   */
  #started = false;
  /** Source files of the last good build. */
  inputs: ReadonlySet<string> = new Set();
  /** The last build failed: a change to any file may fix it (its inputs are unknown). */
  buildFailed = false;

  constructor(entry: string, config: ChildConfig, log: (line: string) => void) {
    this.#entry = entry;
    this.#config = config;
    this.#log = log;
  }

  /**
   * Builds and starts the app; resolves once it is ready, rejects if it cannot start (what went
   * wrong is printed first, without the advice to save, as the caller then stops).
   */
  async start(): Promise<void> {
    const bundle = await this.#build();
    if (!bundle) throw new Error('the app does not build (see above)');
    await this.#launch(bundle);
    this.#started = true;
  }

  /** Rebuilds; if that works, replaces the running app process by a new one. */
  async reload(reason: string): Promise<void> {
    const bundle = await this.#build();
    if (!bundle || this.#closed) return;
    this.#log(`${reason}: reloading the app`);
    await this.#launch(bundle).then(
      () => this.#log('the app is running again'),
      () => {},
    );
  }

  /**
   * The running app's ports, waiting while it (re)starts; undefined at once when it is down
   * (it did not start: it waits for a change), or if it does not come up in time.
   */
  async ports(): Promise<AppPorts | undefined> {
    if (this.#ports || this.#pendingLaunches === 0 || this.#closed) return this.#ports;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(done, WAIT_MS);
      this.#waiters.add(done);
      function done() {
        clearTimeout(timer);
        resolve();
      }
    });
    return this.#ports;
  }

  /** Whether the app is up, or starting: not when its last launch failed. */
  get running(): boolean {
    return this.#ports !== undefined || this.#pendingLaunches > 0;
  }

  get pid(): number | undefined {
    return this.#current?.pid;
  }

  async close(): Promise<void> {
    this.#closed = true;
    await this.#current?.stop();
    this.#release();
    rmSync(this.#dir, { recursive: true, force: true });
  }

  async #build(): Promise<string | undefined> {
    try {
      const bundle = await bundleApp(this.#entry, this.#config.backend);
      const path = join(this.#dir, `app-${++this.#generation}.mjs`);
      writeFileSync(path, bundle.code);
      this.inputs = bundle.inputs;
      this.buildFailed = false;
      for (const line of bundle.undefinedImports) this.#log(`the app will meet undefined: ${line}`);
      return path;
    } catch (error) {
      this.buildFailed = true;
      const advice = this.#started ? '; fix it and save' : '';
      this.#log(`the app does not build${advice}:\n${buildErrorText(error)}`);
      return undefined;
    }
  }

  /** Replaces the running app process (if any) by one running `path`, after earlier launches. */
  #launch(path: string): Promise<void> {
    this.#pendingLaunches++;
    const launch = this.#launches.then(() => this.#replace(path));
    this.#launches = launch.then(
      () => this.#launchDone(),
      () => this.#launchDone(),
    );
    return launch;
  }

  #launchDone(): void {
    // The last one failed: nothing is starting any more, so waiting requests get their answer.
    if (--this.#pendingLaunches === 0) this.#release();
  }

  async #replace(path: string): Promise<void> {
    const previous = this.#current;
    this.#ports = undefined;
    this.#current = undefined;
    await previous?.stop();
    if (this.#closed) return;
    const app = new AppProcess(path, this.#config);
    this.#current = app;
    app.exited.then(({ signal, code }) => this.#onExit(app, path, signal ?? `code ${code}`));
    try {
      this.#ports = await app.ready;
      this.#release();
    } catch (error) {
      if (!this.#closed) this.#log(toBatonError(error).message.replace(/^unexpected error: /, ''));
      throw error;
    }
  }

  /** An app process that ended without being asked to: restart it (unless it never came up). */
  #onExit(app: AppProcess, path: string, how: string): void {
    if (this.#current !== app || this.#closed) return;
    const wasReady = this.#ports !== undefined;
    this.#ports = undefined;
    this.#current = undefined;
    if (!wasReady) {
      // Before the first start, the start's failure says why, and baton dev stops.
      if (this.#started)
        this.#log('the app stopped before it was ready: fix it and save to try again');
      return;
    }
    this.#log(`the app process (pid ${app.pid}) ended (${how}); restarting it`);
    this.#launch(path).catch(() => {});
  }

  #release(): void {
    for (const done of [...this.#waiters]) done();
    this.#waiters.clear();
  }
}
