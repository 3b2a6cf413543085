import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { EMULATOR_REQUIREMENTS, EmulatorError, EmulatorErrorCode } from '../EmulatorError.ts';

/** The Java runtime the emulators run on. */
export interface JavaRuntime {
  /** What to execute: `$JAVA_HOME/bin/java` when that exists, else `java` from PATH. */
  readonly command: string;
  /** The feature release, e.g. 17 or 21. */
  readonly major: number;
}

const MIN_MAJOR = 17;
const found = new Map<string, Promise<JavaRuntime>>();

/**
 * Finds `java` (under `JAVA_HOME` first, then on PATH) and checks that it is Java 17 or newer.
 * Memoized per `JAVA_HOME` and PATH.
 */
export function findJava(env: NodeJS.ProcessEnv): Promise<JavaRuntime> {
  const home = env.JAVA_HOME;
  const candidate = home
    ? join(home, 'bin', process.platform === 'win32' ? 'java.exe' : 'java')
    : '';
  const command = candidate !== '' && existsSync(candidate) ? candidate : 'java';
  const key = `${command}\0${env.PATH ?? ''}`;
  let runtime = found.get(key);
  if (runtime === undefined) {
    runtime = probeJava(command, env);
    found.set(key, runtime);
    runtime.catch(() => found.delete(key));
  }
  return runtime;
}

function probeJava(command: string, env: NodeJS.ProcessEnv): Promise<JavaRuntime> {
  return new Promise((resolve, reject) => {
    execFile(command, ['-version'], { env, timeout: 30_000 }, (error, stdout, stderr) => {
      if (error && (error as NodeJS.ErrnoException).code === 'ENOENT') {
        reject(
          new EmulatorError(
            EmulatorErrorCode.JAVA_NOT_FOUND,
            `No \`java\` found (JAVA_HOME ${env.JAVA_HOME ? 'has no bin/java' : 'is unset'} and none on PATH). ${EMULATOR_REQUIREMENTS}.`,
            { details: { command }, cause: error },
          ),
        );
        return;
      }
      const output = `${stderr}\n${stdout}`;
      const match = /version "(\d+)(?:\.(\d+))?/.exec(output);
      const first = Number(match?.[1] ?? Number.NaN);
      const major = first === 1 ? Number(match?.[2] ?? Number.NaN) : first;
      if (error || !Number.isFinite(major)) {
        reject(
          new EmulatorError(
            EmulatorErrorCode.JAVA_NOT_FOUND,
            `\`${command} -version\` failed: ${output.trim() || String(error)}. ${EMULATOR_REQUIREMENTS}.`,
            { details: { command }, cause: error ?? undefined },
          ),
        );
        return;
      }
      if (major < MIN_MAJOR) {
        reject(
          new EmulatorError(
            EmulatorErrorCode.JAVA_TOO_OLD,
            `\`${command}\` is Java ${major}. ${EMULATOR_REQUIREMENTS}.`,
            { details: { command, major } },
          ),
        );
        return;
      }
      resolve({ command, major });
    });
  });
}
