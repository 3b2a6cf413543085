import { closeSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { invalidArgument } from './invalidArgument.ts';

/** Lock files held by journals open in this process. */
const heldLocks = new Set<string>();

/**
 * Takes `lockPath` for this process: creates it holding our pid, or takes it over when the
 * process named in it is gone. Throws INVALID_ARGUMENT when a live process (or another open
 * journal in this process) holds it.
 */
export function acquireLock(lockPath: string): void {
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const fd = openSync(lockPath, 'wx');
      try {
        writeSync(fd, String(process.pid));
      } finally {
        closeSync(fd);
      }
      heldLocks.add(lockPath);
      return;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    let owner = 0;
    try {
      owner = Number.parseInt(readFileSync(lockPath, 'utf8'), 10);
    } catch {
      continue; // removed meanwhile: try again
    }
    const held = owner === process.pid ? heldLocks.has(lockPath) : isAlive(owner);
    if (held) {
      throw invalidArgument(
        `the journal ${lockPath.slice(0, -'.lock'.length)} is in use by process ${owner}: ` +
          'close the other backend first, or give this one another dataDir ' +
          `(delete ${lockPath} if process ${owner} is not a Baton process)`,
        { lockPath, owner },
      );
    }
    rmSync(lockPath, { force: true }); // stale: its process is gone
  }
  throw invalidArgument(`could not take the lock ${lockPath}: another process keeps taking it`, {
    lockPath,
  });
}

function isAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Gives `lockPath` up. */
export function releaseLock(lockPath: string): void {
  if (!heldLocks.delete(lockPath)) return;
  rmSync(lockPath, { force: true });
}
