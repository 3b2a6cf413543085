import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { acquireLock, releaseLock } from './fileLock.ts';

const fixture = fileURLToPath(new URL('./fixtures/take-lock.ts', import.meta.url));
const dirs: string[] = [];
const held: string[] = [];
const children: ChildProcess[] = [];

afterEach(() => {
  for (const child of children.splice(0)) child.kill('SIGKILL');
  for (const lockPath of held.splice(0)) releaseLock(lockPath);
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'baton-lock-'));
  dirs.push(dir);
  return dir;
}

/** The pid of a process that has exited. */
function deadPid(): number {
  return spawnSync(process.execPath, ['-e', '0']).pid!;
}

function take(lockPath: string): void {
  acquireLock(lockPath);
  held.push(lockPath);
}

interface Contender {
  readonly pid: number;
  /** Per round: `won`, or `lost <message>`. */
  readonly outcomes: Map<number, string>;
}

/**
 * Starts `count` processes that race for each lock in `lockPaths` in turn, all starting each
 * round at the same millisecond; resolves once every one reported every round. They stay
 * alive (holding what they won) until the test ends.
 */
async function race(count: number, lockPaths: readonly string[]): Promise<Contender[]> {
  const startAt = Date.now() + 2_000; // time for every process to start up
  return Promise.all(
    Array.from(
      { length: count },
      () =>
        new Promise<Contender>((resolve, reject) => {
          const child = spawn(
            process.execPath,
            ['--import', 'tsx', fixture, String(startAt), ...lockPaths],
            { stdio: ['pipe', 'pipe', 'pipe'] },
          );
          children.push(child);
          const contender: Contender = { pid: child.pid!, outcomes: new Map() };
          let buffer = '';
          let stderr = '';
          child.stderr.on('data', (chunk) => {
            stderr += chunk;
          });
          child.stdout.on('data', (chunk: Buffer) => {
            buffer += chunk.toString();
            const lines = buffer.split('\n');
            buffer = lines.pop()!;
            for (const line of lines) {
              const space = line.indexOf(' ');
              contender.outcomes.set(Number(line.slice(0, space)), line.slice(space + 1));
            }
            if (contender.outcomes.size === lockPaths.length) resolve(contender);
          });
          child.on('error', reject);
          child.on('exit', (code) => {
            reject(new Error(`a contender stopped early (code ${code}): ${stderr}`));
          });
        }),
    ),
  );
}

describe('acquireLock', () => {
  it('lets exactly one of many processes racing for a lock take it, stale or free', async () => {
    const dir = tempDir();
    // Rounds 0–9 race for a stale lock (its process is gone), rounds 10 and 11 for no lock.
    const rounds = 12;
    const lockPaths = Array.from({ length: rounds }, (_, round) => join(dir, `j${round}.lock`));
    const gone = deadPid();
    for (const lockPath of lockPaths.slice(0, 10)) writeFileSync(lockPath, String(gone));

    const contenders = await race(8, lockPaths);

    for (let round = 0; round < rounds; round++) {
      const winners = contenders.filter((c) => c.outcomes.get(round) === 'won');
      expect(winners, `round ${round}`).toHaveLength(1);
      const winner = winners[0]!;
      // The lock names the winner, and every other contender was told the winner holds it.
      expect(readFileSync(lockPaths[round]!, 'utf8')).toBe(String(winner.pid));
      for (const loser of contenders.filter((c) => c !== winner)) {
        expect(loser.outcomes.get(round)).toContain(`in use by process ${winner.pid}`);
      }
    }
    // Nothing is left behind but the locks: no takeover markers, no temporary files.
    expect(readdirSync(dir).sort()).toEqual(lockPaths.map((p) => p.slice(dir.length + 1)).sort());
  }, 60_000);

  it('takes over a stale lock past a takeover marker its dead taker left, and removes it', () => {
    const lockPath = join(tempDir(), 'journal.lock');
    writeFileSync(lockPath, String(deadPid()));
    const stats = statSync(lockPath, { bigint: true });
    const identity = `${stats.ino}${stats.birthtimeNs > 0n ? `.${stats.birthtimeNs}` : ''}`;
    const marker = `${lockPath}.takeover-${identity}-0`;
    writeFileSync(marker, String(deadPid()));
    take(lockPath);
    expect(readFileSync(lockPath, 'utf8')).toBe(String(process.pid));
    expect(existsSync(marker)).toBe(false);
  });

  it('takes over a lock that names no process at all', () => {
    const lockPath = join(tempDir(), 'journal.lock');
    writeFileSync(lockPath, '');
    take(lockPath);
    expect(readFileSync(lockPath, 'utf8')).toBe(String(process.pid));
  });

  it('refuses a lock this process holds already, naming the holder', () => {
    const lockPath = join(tempDir(), 'journal.lock');
    take(lockPath);
    expect(() => acquireLock(lockPath)).toThrow(`in use by process ${process.pid}`);
  });

  it('on release, leaves alone a lock file that is no longer its own', () => {
    const lockPath = join(tempDir(), 'journal.lock');
    acquireLock(lockPath);
    rmSync(lockPath);
    writeFileSync(lockPath, '12345');
    releaseLock(lockPath);
    expect(readFileSync(lockPath, 'utf8')).toBe('12345');
    // And gives up its own.
    rmSync(lockPath);
    acquireLock(lockPath);
    releaseLock(lockPath);
    expect(existsSync(lockPath)).toBe(false);
  });
});
