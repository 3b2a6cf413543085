import { randomBytes } from 'node:crypto';
import {
  closeSync,
  fstatSync,
  linkSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { invalidArgument } from '@baton/core/adapter';

/**
 * A lock file holds the pid of its owner and appears only whole: it is written under a
 * temporary name and then linked (create) or renamed (takeover) into place, so a reader never
 * sees an empty or half-written lock and mistakes it for a stale one.
 *
 * Taking over a stale lock — its owner is gone — is a race between every process that finds
 * it. The lock file's identity (its inode and birth time) names it: only the process that
 * creates the marker `<lock>.takeover-<identity>-<k>` (exclusive create) may replace it, after
 * checking that the lock is still that file and its owner still gone. A marker whose creator
 * died names no live contender, so the next one tries `k + 1`; a marker whose creator lives
 * means a takeover is under way, and the others wait for it and then find the lock held.
 * While a stale lock file is in place no marker of it is removed, so one live process at most
 * holds a marker of it: exactly one process replaces it.
 */

/** Lock files held by journals open in this process, with the identity of our lock file. */
const heldLocks = new Map<string, string>();

/** How long to wait for another process's takeover of a stale lock to finish. */
const TAKEOVER_WAIT_MS = 5_000;
const RETRY_MS = 5;

interface LockFile {
  /** The pid written in it (NaN if it holds something else). */
  readonly owner: number;
  /** Its inode and birth time: what tells this lock file from a later one at the path. */
  readonly identity: string;
}

/**
 * Takes `lockPath` for this process: creates it holding our pid, or takes it over when the
 * process named in it is gone (exactly one of several processes racing for a stale lock wins).
 * Throws INVALID_ARGUMENT when a live process (or another open journal in this process) holds it.
 */
export function acquireLock(lockPath: string): void {
  const deadline = Date.now() + TAKEOVER_WAIT_MS;
  for (;;) {
    const created = create(lockPath);
    if (created !== undefined) {
      heldLocks.set(lockPath, created);
      return;
    }
    const current = readLock(lockPath);
    if (current === undefined) continue; // removed meanwhile: try again
    if (isHeld(lockPath, current)) {
      throw invalidArgument(
        `the journal ${lockPath.slice(0, -'.lock'.length)} is in use by process ${current.owner}: ` +
          'close the other backend first, or give this one another dataDir ' +
          `(delete ${lockPath} if process ${current.owner} is not a Baton process)`,
        { lockPath, owner: current.owner },
      );
    }
    const outcome = takeOver(lockPath, current.identity);
    if (outcome.won !== undefined) {
      heldLocks.set(lockPath, outcome.won);
      return;
    }
    // Lost: someone else replaced the stale lock; look at the new one at once.
    if (!outcome.busy) continue;
    if (Date.now() > deadline) {
      throw invalidArgument(
        `could not take the lock ${lockPath}: another process has been taking it over for ` +
          `${TAKEOVER_WAIT_MS} ms; try again, or delete ${lockPath} and its .takeover-* ` +
          'files if no Baton process uses the journal',
        { lockPath },
      );
    }
    sleep(RETRY_MS);
  }
}

/** Whether a live process (or an open journal of this process) holds the lock file `lock`. */
function isHeld(lockPath: string, lock: LockFile): boolean {
  return lock.owner === process.pid
    ? heldLocks.get(lockPath) === lock.identity
    : isAlive(lock.owner);
}

/** Gives `lockPath` up, unless another process has (wrongly) taken it over meanwhile. */
export function releaseLock(lockPath: string): void {
  const identity = heldLocks.get(lockPath);
  if (identity === undefined) return;
  heldLocks.delete(lockPath);
  const current = readLock(lockPath);
  if (current?.identity === identity && current.owner === process.pid) {
    rmSync(lockPath, { force: true });
  }
}

/** Creates the lock if there is none; returns its identity, or undefined if it exists. */
function create(lockPath: string): string | undefined {
  const fresh = writeFresh(lockPath);
  try {
    linkSync(fresh.path, lockPath);
    return fresh.identity;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return undefined;
    throw error;
  } finally {
    rmSync(fresh.path, { force: true });
  }
}

/**
 * Replaces the stale lock file `identity` with ours if this process wins the right to. Returns
 * our lock's identity as `won`; `busy` while a live process is taking it over; neither once the
 * lock at `lockPath` is no longer that file (someone else won).
 */
function takeOver(lockPath: string, identity: string): { won?: string; busy?: true } {
  for (let k = 0; ; k++) {
    const marker = `${lockPath}.takeover-${identity}-${k}`;
    const fresh = writeFresh(lockPath);
    let won = false;
    try {
      linkSync(fresh.path, marker);
      won = true;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    } finally {
      if (!won) rmSync(fresh.path, { force: true });
    }
    if (!won) {
      const taker = readLock(marker);
      if (taker === undefined) return {}; // its taker finished and cleaned up: lost
      if (taker.owner !== process.pid && isAlive(taker.owner)) return { busy: true };
      continue; // its taker died before it finished: the next marker decides
    }
    try {
      // Holding the marker, only we may replace the lock file `identity`. Its owner is checked
      // again: should a newer lock have reused the inode, that one's owner must be gone too.
      const current = readLock(lockPath);
      if (current?.identity !== identity || isHeld(lockPath, current)) return {};
      renameSync(fresh.path, lockPath);
      for (let j = 0; j < k; j++) rmSync(`${lockPath}.takeover-${identity}-${j}`, { force: true });
      return { won: fresh.identity };
    } finally {
      rmSync(fresh.path, { force: true });
      rmSync(marker, { force: true });
    }
  }
}

/** Writes our pid to a file of a name of its own beside `lockPath`. */
function writeFresh(lockPath: string): { path: string; identity: string } {
  const path = `${lockPath}.${process.pid}-${randomBytes(6).toString('hex')}.new`;
  writeFileSync(path, String(process.pid), { flag: 'wx', mode: 0o600 });
  return { path, identity: readLock(path)!.identity };
}

/** The pid in a lock (or marker) file and its identity; undefined if there is no such file. */
function readLock(path: string): LockFile | undefined {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  try {
    const stats = fstatSync(fd, { bigint: true });
    // The birth time, where the file system keeps one, tells apart files reusing an inode.
    const identity = `${stats.ino}${stats.birthtimeNs > 0n ? `.${stats.birthtimeNs}` : ''}`;
    return { owner: Number.parseInt(readFileSync(fd, 'utf8'), 10), identity };
  } finally {
    closeSync(fd);
  }
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

function sleep(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}
