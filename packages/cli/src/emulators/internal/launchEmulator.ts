import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { request } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { EmulatorError, EmulatorErrorCode } from '../EmulatorError.ts';
import { findFreePort } from './findFreePort.ts';
import { OutputTail } from './OutputTail.ts';
import { ownerMarker, track, untrack } from './processRegistry.ts';

/** How to tell that an emulator is up: any HTTP response to this request. */
export interface Probe {
  readonly method: 'GET' | 'POST';
  readonly path: string;
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: string;
}

export interface LaunchSpec {
  /** Short name, also in the JVM's `-Dbaton.emulator=` marker: `dynamodb-local`. */
  readonly name: string;
  /** For messages: `DynamoDB Local 2.6.1`. */
  readonly title: string;
  readonly java: string;
  readonly cacheDir: string;
  readonly cwd: string;
  readonly env: NodeJS.ProcessEnv;
  /** A fixed port; by default a free loopback port, re-picked if another process takes it first. */
  readonly port?: number;
  readonly startTimeoutMs: number;
  readonly probe: Probe;
  readonly log: (message: string) => void;
  /** The JVM arguments (flags, classpath, main class, program arguments) for a port. */
  readonly argsFor: (port: number) => Promise<{
    readonly args: readonly string[];
    readonly cleanup?: () => Promise<void>;
  }>;
}

export interface LaunchedEmulator {
  readonly port: number;
  /** The JVM's pid. */
  readonly pid: number;
  stop(): Promise<void>;
}

const STOP_GRACE_MS = 5_000;
const PORT_CLASH = /BindException|Address already in use/i;

/**
 * The parent-death watchdog (POSIX sh). It keeps the read end of a pipe whose write end only
 * the Node.js parent holds, forks a watcher, and then becomes the JVM with `exec`, so the JVM
 * keeps the pid Node.js knows. When the parent goes away by any means, even SIGKILL, the pipe
 * reports end-of-file and the watcher sends SIGTERM, then SIGKILL after 5 s. `stop()` closes the
 * pipe on purpose. The watcher keeps stderr open, so the child's `close` event means that both
 * the JVM and its watcher are gone.
 */
const WATCHDOG = `PATH="\${PATH:+$PATH:}/usr/bin:/bin"
exec 3<&0
jvm=$$
(
  while read -r _ <&3; do :; done
  kill -TERM "$jvm" 2>/dev/null || exit 0
  i=0
  while [ "$i" -lt 50 ]; do
    kill -0 "$jvm" 2>/dev/null || exit 0
    sleep 0.1
    i=$((i + 1))
  done
  kill -KILL "$jvm" 2>/dev/null
) </dev/null >/dev/null &
exec "$@" </dev/null 3<&-
`;

/** Starts an emulator JVM on a loopback port and waits until it answers HTTP. */
export async function launchEmulator(spec: LaunchSpec): Promise<LaunchedEmulator> {
  const attempts = spec.port === undefined ? 3 : 1;
  for (let attempt = 1; ; attempt++) {
    const port = spec.port ?? (await findFreePort());
    try {
      return await launchOnPort(spec, port);
    } catch (error) {
      const clash = error instanceof EmulatorError && error.details.portClash === true;
      if (!clash || attempt >= attempts) throw error;
      spec.log(`${spec.title}: port ${port} was taken meanwhile; trying another.`);
    }
  }
}

async function launchOnPort(spec: LaunchSpec, port: number): Promise<LaunchedEmulator> {
  const { args, cleanup } = await spec.argsFor(port);
  const jvmArgs = [`-Dbaton.emulator=${spec.name}`, ownerMarker(), ...args];
  const started = Date.now();
  const child: ChildProcessWithoutNullStreams =
    process.platform === 'win32'
      ? spawn(spec.java, jvmArgs, { cwd: spec.cwd, env: spec.env, windowsHide: true })
      : spawn('/bin/sh', ['-c', WATCHDOG, 'baton-emulator', spec.java, ...jvmArgs], {
          cwd: spec.cwd,
          env: spec.env,
          // A process group of its own: a terminal's Ctrl-C reaches only Node.js, which decides
          // when the emulator stops (e.g. after the app that uses it), not the JVM directly.
          detached: true,
        });
  const tail = new OutputTail();
  child.stdout.on('data', (chunk: Buffer) => tail.push(chunk));
  child.stderr.on('data', (chunk: Buffer) => tail.push(chunk));
  child.stdin.on('error', () => undefined);

  const exited = new Promise<string>((resolve) => {
    child.once('exit', (code, signal) => resolve(signal ?? `code ${code}`));
    child.once('error', (error) => resolve(error.message));
  });
  const closed = new Promise<void>((resolve) => {
    child.once('close', () => resolve());
    child.once('error', () => resolve());
  });
  let exitReason: string | undefined;
  void exited.then((reason) => {
    exitReason = reason;
  });

  const pid = child.pid;
  if (pid !== undefined) track(spec.cacheDir, spec.name, pid, () => child.kill('SIGKILL'));

  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> => {
    stopping ??= (async () => {
      child.stdin.destroy();
      if (exitReason === undefined) {
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), STOP_GRACE_MS);
        await exited;
        clearTimeout(timer);
      }
      await Promise.race([closed, sleep(STOP_GRACE_MS, undefined, { ref: false })]);
      if (pid !== undefined) untrack(pid);
      await cleanup?.();
    })();
    return stopping;
  };

  const deadline = started + spec.startTimeoutMs;
  for (;;) {
    // An answer counts only while our JVM lives: else another process may hold the port.
    if (exitReason === undefined && (await answers(port, spec.probe)) && exitReason === undefined) {
      break;
    }
    if (exitReason !== undefined) {
      await stop();
      const portClash = spec.port === undefined && tail.some(PORT_CLASH);
      throw new EmulatorError(
        EmulatorErrorCode.START_FAILED,
        `${spec.title} exited (${exitReason}) before it answered on port ${port}. Its last output:\n${tail}`,
        { details: { emulator: spec.name, port, portClash, output: tail.toString() } },
      );
    }
    if (Date.now() >= deadline) {
      await stop();
      throw new EmulatorError(
        EmulatorErrorCode.START_TIMEOUT,
        `${spec.title} did not answer on http://127.0.0.1:${port} within ${spec.startTimeoutMs / 1000} s. Its last output:\n${tail}`,
        { details: { emulator: spec.name, port, output: tail.toString() } },
      );
    }
    await Promise.race([sleep(100, undefined, { ref: false }), exited]);
  }
  spec.log(
    `${spec.title} answers on http://127.0.0.1:${port} (pid ${pid}, ${Date.now() - started} ms).`,
  );
  void exited.then((reason) => {
    if (stopping === undefined)
      spec.log(`${spec.title} (pid ${pid}) ended (${reason}) while in use.`);
  });
  return { port, pid: pid ?? -1, stop };
}

function answers(port: number, probe: Probe): Promise<boolean> {
  return new Promise((resolve) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        method: probe.method,
        path: probe.path,
        headers: probe.headers,
        timeout: 1_000,
        agent: false,
      },
      (res) => {
        res.resume();
        resolve(true);
      },
    );
    req.once('timeout', () => req.destroy());
    req.once('error', () => resolve(false));
    req.end(probe.body);
  });
}
