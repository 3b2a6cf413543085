import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { compareSeq } from '@baton/core/adapter';
import { afterEach, describe, expect, it } from 'vitest';
import { createEmbeddedBackend } from './createEmbeddedBackend.ts';

const fixture = fileURLToPath(new URL('./fixtures/commit-loop.ts', import.meta.url));
const dirs: string[] = [];

afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

interface Reported {
  start: number;
  commits: number[];
  sends: Map<number, string>;
}

/** Runs the fixture until it reported `commits` more commits, then kills it with SIGKILL. */
function runAndKill(dataDir: string, commits: number): Promise<Reported> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', fixture, dataDir], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const reported: Reported = { start: -1, commits: [], sends: new Map() };
    let buffer = '';
    let stderr = '';
    let killed = false;
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    child.stdout.on('data', (chunk: Buffer) => {
      buffer += chunk.toString();
      const lines = buffer.split('\n');
      buffer = lines.pop()!;
      for (const line of lines) {
        const [kind, a, b] = line.split(' ');
        if (kind === 'start') reported.start = Number(a);
        if (kind === 'commit') reported.commits.push(Number(a));
        if (kind === 'send') reported.sends.set(Number(a), b!);
      }
      if (!killed && reported.commits.length >= commits) {
        killed = true;
        child.kill('SIGKILL');
      }
    });
    child.on('error', reject);
    // 'exit' after the kill: the process is gone, so its journal lock is stale.
    child.on('exit', (_code, signal) => {
      if (signal === 'SIGKILL') resolve(reported);
      else reject(new Error(`the fixture stopped by itself: ${stderr}`));
    });
  });
}

describe('durability with a dataDir', () => {
  it('keeps every commit and send a killed process reported, and continues sequences', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'baton-embedded-'));
    dirs.push(dataDir);

    const first = await runAndKill(dataDir, 60);
    expect(first.start).toBe(0);
    const second = await runAndKill(dataDir, 40);
    // The second process started from everything the first one reported.
    expect(second.start).toBeGreaterThanOrEqual(first.commits.at(-1)!);

    const backend = createEmbeddedBackend({ dataDir });
    try {
      const record = await backend.store.load('counter/a');
      const lastReported = second.commits.at(-1)!;
      expect(record!.ver).toBeGreaterThanOrEqual(lastReported);
      // Each commit put its record, one outbox item and one idempotency record, all or nothing.
      const outbox = await backend.store.readOutbox('counter/a');
      expect(outbox.map((item) => item.seq)).toEqual(
        Array.from({ length: record!.ver }, (_, i) => i + 1),
      );
      for (const ver of [...first.commits, ...second.commits]) {
        expect(await backend.store.readIdempotency(`k${ver}`)).toMatchObject({
          actorId: 'counter/a',
        });
      }

      const queued = new Map(backend.queue.messages().map((m) => [m.body, m.seq]));
      const sends = [...first.sends, ...second.sends];
      expect(sends.length).toBeGreaterThan(90);
      for (const [ver, seq] of sends) expect(queued.get(String(ver))).toBe(seq);
      const seqs = [...queued.values()];
      for (let i = 1; i < seqs.length; i++)
        expect(compareSeq(seqs[i - 1]!, seqs[i]!)).toBeLessThan(0);

      await backend.queue.send([{ group: 'g', dedupeId: 'after-restart', body: 'after' }]);
      const after = backend.queue.messages().find((m) => m.body === 'after')!;
      for (const seq of seqs) expect(compareSeq(after.seq, seq)).toBeGreaterThan(0);
      // Dedupe ids survive the restart too.
      const lastSent = [...second.sends.keys()].at(-1)!;
      await backend.queue.send([{ group: 'g', dedupeId: `m${lastSent}`, body: 'again' }]);
      expect(backend.queue.messages().some((m) => m.body === 'again')).toBe(false);
    } finally {
      backend.close();
    }
  });
});
