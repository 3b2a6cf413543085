/**
 * `pnpm build`: `tsc -b` over every package, one build of the tree at a time. Two builds at once
 * (two test files that pack the packages, run side by side) read each other's half-written
 * outputs and fail with TS6305. A build that finds another under way waits for it to end, then
 * runs, and mostly finds nothing left to do.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '..');
const lock = join(root, 'node_modules', '.baton-build-lock');
const owner = join(lock, 'pid');
/** Longer than a build from nothing on a loaded 2-core host. */
const WAIT_MS = 10 * 60_000;
/** A lock without its owner's pid for this long was left by a build killed as it took it. */
const PID_GRACE_MS = 10_000;

function sleep(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/** Whether the lock was left by a build that is gone (killed before it could remove it). */
function abandoned(): boolean {
  try {
    process.kill(Number(readFileSync(owner, 'utf8')), 0);
    return false;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EPERM') return false; // alive, another user's
    if (code === 'ESRCH') return true;
    // No pid yet: the owner is between taking the lock and writing it, or died there.
    try {
      return Date.now() - statSync(lock).mtimeMs > PID_GRACE_MS;
    } catch {
      return false; // released meanwhile
    }
  }
}

function acquire(): void {
  const until = Date.now() + WAIT_MS;
  for (;;) {
    try {
      mkdirSync(lock);
      writeFileSync(owner, String(process.pid));
      return;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    if (abandoned()) {
      rmSync(lock, { recursive: true, force: true });
      continue;
    }
    if (Date.now() > until) {
      throw new Error(
        `another build has held ${lock} for ${WAIT_MS / 60_000} minutes: if none is running, remove that folder`,
      );
    }
    sleep(200);
  }
}

const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
acquire();
try {
  execFileSync(process.execPath, [tsc, '-b', 'tsconfig.build.json', ...process.argv.slice(2)], {
    cwd: root,
    stdio: 'inherit',
  });
} catch {
  process.exitCode = 1; // tsc printed its errors
} finally {
  rmSync(lock, { recursive: true, force: true });
}
