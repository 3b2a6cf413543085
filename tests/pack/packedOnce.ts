/**
 * The packages packed once per test run. Two files install Baton from its tarballs, and a
 * packing builds every package into the same `dist/` folders: two at once (vitest runs two
 * files at a time) would write over each other, and a pack each cost the run one too many. So
 * the first file to ask runs `pnpm pack:all` into the folder the global setup names; any other
 * waits for it, then each takes a copy of its own (a test may change a tarball).
 *
 * @example
 * const { output } = await packedOnce(join(scratch, 'tarballs'));
 */
import { execFile } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { inject } from 'vitest';

const ROOT = new URL('../../', import.meta.url).pathname;
/** A pack on a loaded 2-core host takes under a minute; past this, its packer is gone. */
const WAIT_MS = 10 * 60_000;

/**
 * Copies every tarball `pnpm pack:all` writes into `into` (made if missing), packing them first
 * if no file of this run has; returns what pack:all printed.
 */
export async function packedOnce(into: string): Promise<{ output: string }> {
  const shared = inject('packedFolder');
  const tarballs = join(shared, 'tarballs');
  const output = join(shared, 'output.txt');
  const failure = join(shared, 'failure.txt');
  if (claim(join(shared, 'claim'))) {
    try {
      const { stdout } = await promisify(execFile)(
        'pnpm',
        ['run', '--silent', 'pack:all', tarballs],
        { cwd: ROOT, maxBuffer: 64 * 1024 * 1024 },
      );
      publish(output, stdout);
    } catch (error) {
      const { stdout, stderr } = error as { stdout?: string; stderr?: string };
      publish(failure, `pnpm pack:all failed:\n${stdout ?? ''}\n${stderr ?? error}`);
    }
  }
  const deadline = Date.now() + WAIT_MS;
  while (!existsSync(output)) {
    if (existsSync(failure)) throw new Error(readFileSync(failure, 'utf8'));
    if (Date.now() > deadline) throw new Error(`no pack in ${shared} after ${WAIT_MS / 1000} s`);
    await sleep(250);
  }
  mkdirSync(into, { recursive: true });
  cpSync(tarballs, into, { recursive: true });
  return { output: readFileSync(output, 'utf8') };
}

/** Whether this file is the first to ask: making a folder either succeeds once or fails. */
function claim(path: string): boolean {
  try {
    mkdirSync(path);
    return true;
  } catch {
    return false;
  }
}

/** Writes `text` to `path` whole or not at all, for a waiter that reads it as soon as it is there. */
function publish(path: string, text: string): void {
  writeFileSync(`${path}.part`, text);
  renameSync(`${path}.part`, path);
}
