import { type ChildProcess, fork } from 'node:child_process';
import { BatonError, ErrorCode } from '@baton/core';
import { CHILD_CONFIG_ENV, type ChildConfig, type ChildMessage } from './protocol.ts';

/** Where a ready app process listens (loopback). */
export interface AppPorts {
  readonly httpPort: number;
  readonly wsPort: number;
}

/** How long a stopping app process gets before it is killed. */
const STOP_GRACE_MS = 5_000;

/**
 * One run of the app process (`child/runApp` bundled with the app). `ready` resolves with its
 * ports, or rejects if it fails or exits first; `exited` resolves with how it ended.
 */
export class AppProcess {
  readonly ready: Promise<AppPorts>;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  readonly #child: ChildProcess;

  constructor(bundlePath: string, config: ChildConfig) {
    this.#child = fork(bundlePath, [], {
      execArgv: ['--enable-source-maps'],
      env: { ...process.env, [CHILD_CONFIG_ENV]: JSON.stringify(config) },
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    this.exited = new Promise((resolve) => {
      this.#child.once('exit', (code, signal) => resolve({ code, signal }));
    });
    this.ready = new Promise<AppPorts>((resolve, reject) => {
      this.#child.on('message', (message: ChildMessage) => {
        if (message.type === 'ready') resolve(message);
        else if (message.type === 'failed') {
          reject(
            new BatonError(ErrorCode.INVALID_STATE, `the app failed to start: ${message.message}`),
          );
        }
      });
      this.exited.then(({ code, signal }) =>
        reject(
          new BatonError(
            ErrorCode.UNAVAILABLE,
            `the app process exited before it was ready (${signal ?? `code ${code}`})`,
          ),
        ),
      );
    });
    this.ready.catch(() => {});
  }

  get pid(): number | undefined {
    return this.#child.pid;
  }

  /** Asks the app to stop (it closes its sockets and its data), killing it after a grace period. */
  async stop(): Promise<void> {
    if (this.#child.exitCode !== null || this.#child.signalCode !== null) return;
    // A child that is ending on its own (a failed start) may close the channel under the send:
    // then it is told by a signal (without the callback, the failed send would be an 'error'
    // event, which nothing handles, and would end baton dev itself).
    const stop = () => this.#child.kill('SIGTERM');
    if (this.#child.connected) this.#child.send({ type: 'stop' }, (error) => error && stop());
    else stop();
    const timer = setTimeout(() => this.#child.kill('SIGKILL'), STOP_GRACE_MS);
    await this.exited;
    clearTimeout(timer);
  }
}
