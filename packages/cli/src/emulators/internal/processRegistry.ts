import { execFile } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Keeps emulator processes from outliving their owner: kills the live ones when this process
 * exits or is interrupted (unless its own signal handlers take care of that), and records each one in `<cacheDir>/pids/<pid>.json` so that the next
 * start can kill those whose owner died without cleaning up (e.g. by SIGKILL).
 */

interface Tracked {
  readonly pid: number;
  readonly pidFile: string;
  readonly kill: () => void;
}

interface PidRecord {
  readonly pid: number;
  readonly owner: number;
  readonly name: string;
}

const live = new Map<number, Tracked>();
const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

/** The JVM flag that marks an emulator process and names its owner; `ps` shows it. */
export function ownerMarker(owner: number = process.pid): string {
  return `-Dbaton.emulator.owner=${owner}`;
}

export function track(cacheDir: string, name: string, pid: number, kill: () => void): void {
  const dir = join(cacheDir, 'pids');
  mkdirSync(dir, { recursive: true });
  const pidFile = join(dir, `${pid}.json`);
  const record: PidRecord = { pid, owner: process.pid, name };
  writeFileSync(pidFile, JSON.stringify(record));
  if (live.size === 0) installHandlers();
  live.set(pid, { pid, pidFile, kill });
}

export function untrack(pid: number): void {
  const tracked = live.get(pid);
  if (tracked === undefined) return;
  live.delete(pid);
  rmSync(tracked.pidFile, { force: true });
  if (live.size === 0) removeHandlers();
}

/**
 * Kills emulators recorded in the cache whose owner process is gone, and deletes the files such
 * owners left in `<cacheDir>/run/` (named `<name>-<owner pid>-<port>.<ext>`).
 */
export async function killOrphans(cacheDir: string): Promise<number[]> {
  removeOrphanRunFiles(join(cacheDir, 'run'));
  const dir = join(cacheDir, 'pids');
  let files: string[];
  try {
    files = readdirSync(dir).filter((file) => file.endsWith('.json'));
  } catch {
    return [];
  }
  const killed: number[] = [];
  for (const file of files) {
    const path = join(dir, file);
    let record: PidRecord;
    try {
      record = JSON.parse(readFileSync(path, 'utf8')) as PidRecord;
    } catch {
      rmSync(path, { force: true });
      continue;
    }
    if (isAlive(record.owner)) continue;
    // The pid may have been reused since: kill only a process that carries the owner's marker.
    if (
      isAlive(record.pid) &&
      (await commandLine(record.pid)).includes(ownerMarker(record.owner))
    ) {
      try {
        process.kill(record.pid, 'SIGKILL');
        killed.push(record.pid);
      } catch {
        // gone meanwhile
      }
    }
    rmSync(path, { force: true });
  }
  return killed;
}

function removeOrphanRunFiles(dir: string): void {
  let files: string[];
  try {
    files = readdirSync(dir);
  } catch {
    return;
  }
  for (const file of files) {
    const owner = Number(/-(\d+)-\d+\.\w+$/.exec(file)?.[1]);
    if (Number.isInteger(owner) && owner > 0 && !isAlive(owner))
      rmSync(join(dir, file), { force: true });
  }
}

/** Whether a process with this pid exists. */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function commandLine(pid: number): Promise<string> {
  return new Promise((resolve) => {
    execFile('ps', ['-ww', '-o', 'args=', '-p', String(pid)], (error, stdout) =>
      resolve(error ? '' : stdout),
    );
  });
}

function killAll(): void {
  for (const tracked of [...live.values()]) {
    try {
      tracked.kill();
    } catch {
      // already gone
    }
    untrack(tracked.pid);
  }
}

function onExit(): void {
  killAll();
}

/**
 * Alone with this signal, keeps its default meaning: kills the emulators and ends the process.
 * When the process has handlers of its own for it (a dev server that stops its app first), it
 * will not die of the signal: those handlers decide when the emulators stop, and the `exit`
 * hook (or the watchdog) still makes sure they do not outlive the process.
 */
function onSignal(signal: NodeJS.Signals): void {
  if (process.listenerCount(signal) > 1) return;
  killAll();
  process.kill(process.pid, signal);
}

function installHandlers(): void {
  process.on('exit', onExit);
  for (const signal of SIGNALS) process.on(signal, onSignal);
}

function removeHandlers(): void {
  process.off('exit', onExit);
  for (const signal of SIGNALS) process.off(signal, onSignal);
}
