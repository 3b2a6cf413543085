import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { isAlive, killOrphans, ownerMarker } from './processRegistry.ts';

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

/** A pid that belonged to a process that has exited. */
function deadPid(): number {
  const { pid } = spawnSync(process.execPath, ['-e', '']);
  if (pid === undefined || isAlive(pid)) throw new Error('no dead pid');
  return pid;
}

/** A long-running process whose command line carries the emulator marker of `owner`. */
async function fakeEmulator(owner: number) {
  const child = spawn(
    process.execPath,
    ['-e', 'setInterval(() => {}, 1000)', '--', ownerMarker(owner)],
    { stdio: 'ignore' },
  );
  cleanups.push(() => child.kill('SIGKILL'));
  await once(child, 'spawn');
  // 'spawn' may come before exec has replaced the forked command line.
  for (let tries = 0; ; tries++) {
    if (child.exitCode !== null || tries > 500) throw new Error('the fake emulator did not start');
    const args = spawnSync('ps', ['-ww', '-o', 'args=', '-p', String(child.pid)], {
      encoding: 'utf8',
    }).stdout;
    if (args.includes(ownerMarker(owner))) return child;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

function cacheWithPidFile(record: { pid: number; owner: number }): string {
  const cacheDir = mkdtempSync(join(tmpdir(), 'baton-registry-'));
  cleanups.push(() => rmSync(cacheDir, { recursive: true, force: true }));
  mkdirSync(join(cacheDir, 'pids'));
  writeFileSync(
    join(cacheDir, 'pids', `${record.pid}.json`),
    JSON.stringify({ ...record, name: 'dynamodb-local' }),
  );
  return cacheDir;
}

describe('killOrphans', () => {
  it('kills an emulator whose owner died without stopping it', async () => {
    const owner = deadPid();
    const orphan = await fakeEmulator(owner);
    const cacheDir = cacheWithPidFile({ pid: orphan.pid!, owner });

    const exited = once(orphan, 'exit');
    expect(await killOrphans(cacheDir)).toEqual([orphan.pid]);
    await exited;
    expect(isAlive(orphan.pid!)).toBe(false);
    expect(existsSync(join(cacheDir, 'pids', `${orphan.pid}.json`))).toBe(false);
  });

  it('leaves alone emulators whose owner is alive', async () => {
    const child = await fakeEmulator(process.pid);
    const cacheDir = cacheWithPidFile({ pid: child.pid!, owner: process.pid });

    expect(await killOrphans(cacheDir)).toEqual([]);
    expect(isAlive(child.pid!)).toBe(true);
  });

  it('never kills a reused pid that does not carry the marker', async () => {
    const stranger = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], {
      stdio: 'ignore',
    });
    cleanups.push(() => stranger.kill('SIGKILL'));
    await once(stranger, 'spawn');
    const cacheDir = cacheWithPidFile({ pid: stranger.pid!, owner: deadPid() });

    expect(await killOrphans(cacheDir)).toEqual([]);
    expect(isAlive(stranger.pid!)).toBe(true);
  });

  it('deletes the run files that dead owners left behind', async () => {
    const cacheDir = mkdtempSync(join(tmpdir(), 'baton-registry-'));
    cleanups.push(() => rmSync(cacheDir, { recursive: true, force: true }));
    mkdirSync(join(cacheDir, 'run'));
    const orphaned = join(cacheDir, 'run', `elasticmq-${deadPid()}-4000.conf`);
    const mine = join(cacheDir, 'run', `elasticmq-${process.pid}-4001.conf`);
    writeFileSync(orphaned, '');
    writeFileSync(mine, '');

    await killOrphans(cacheDir);
    expect([existsSync(orphaned), existsSync(mine)]).toEqual([false, true]);
  });
});

/**
 * A process that tracks a stand-in emulator (a sleeping node) and, with `own`, handles SIGINT
 * itself: it reports whether the emulator still runs 200 ms later, then exits 0.
 */
async function owner(own: boolean) {
  const dir = mkdtempSync(join(tmpdir(), 'baton-registry-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  const script = join(dir, 'owner.mts');
  const registry = pathToFileURL(join(import.meta.dirname, 'processRegistry.ts')).href;
  writeFileSync(
    script,
    `import { spawn } from 'node:child_process';
import { track } from ${JSON.stringify(registry)};
const fake = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
track(${JSON.stringify(dir)}, 'fake', fake.pid, () => fake.kill('SIGKILL'));
if (${own}) {
  process.on('SIGINT', () => setTimeout(() => {
    console.log('emulator alive after SIGINT: ' + (fake.exitCode === null && fake.signalCode === null));
    process.exit(0);
  }, 200));
}
console.log('emulator ' + fake.pid);
setInterval(() => {}, 1000);
`,
  );
  const child = spawn(process.execPath, ['--import', 'tsx', script], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  cleanups.push(() => child.kill('SIGKILL'));
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  const exited = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
  await expect.poll(() => output, { timeout: 10_000 }).toMatch(/emulator \d+/);
  const emulator = Number(/emulator (\d+)/.exec(output)![1]);
  cleanups.push(() => isAlive(emulator) && process.kill(emulator, 'SIGKILL'));
  return { child, emulator, exited, output: () => output };
}

/** Running, not merely a zombie that nobody reaped yet (a container's pid 1 may not). */
function running(pid: number): boolean {
  const state = spawnSync('ps', ['-o', 'stat=', '-p', String(pid)], { encoding: 'utf8' }).stdout;
  return isAlive(pid) && state.trim() !== '' && !state.trim().startsWith('Z');
}

describe('the signal hooks', () => {
  it('kill the emulators and end the process on a signal it does not handle itself', async () => {
    const { child, emulator, exited } = await owner(false);
    child.kill('SIGINT');
    expect(await exited).toEqual([null, 'SIGINT']);
    await expect.poll(() => running(emulator)).toBe(false);
  });

  it("leave the emulators to the process's own handler, and kill them when it exits", async () => {
    const { child, emulator, exited, output } = await owner(true);
    child.kill('SIGINT');
    expect(await exited).toEqual([0, null]);
    expect(output()).toContain('emulator alive after SIGINT: true');
    await expect.poll(() => running(emulator)).toBe(false);
  });
});
