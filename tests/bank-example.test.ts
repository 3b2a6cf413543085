import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..');
const run = (env: Record<string, string> = {}, args: string[] = []) =>
  promisify(execFile)(join(root, 'node_modules', '.bin', 'tsx'), ['src/main.ts', ...args], {
    cwd: join(root, 'examples', 'bank'),
    env: { ...process.env, ...env },
  });

const balances = (stdout: string) =>
  Object.fromEntries(
    [...stdout.matchAll(/^ {2}(alice|bob|carol|total)\s+(-?\d+)$/gm)].map((m) => [
      m[1],
      Number(m[2]),
    ]),
  );

describe('the bank example (the main job)', () => {
  it('prints each step and balances whose total matches the money deposited', async () => {
    const { stdout } = await run();
    expect(stdout).toContain('✗ withdraw 500 from bob → REJECTED');
    expect(stdout).toContain('✗ deposit -5 to bob → INVALID_PAYLOAD');
    // credit is internal: no client mints money with it.
    expect(stdout).toMatch(
      /✗ an anonymous client sends credit .* → FORBIDDEN: actor type "account" has no public handler "credit"/,
    );
    expect(balances(stdout)).toEqual({ alice: 70, bob: 80, carol: 0, total: 150 });
  });

  it('keeps its accounts across runs with a data directory', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'baton-bank-'));
    try {
      await run({ BATON_DATA_DIR: dataDir });
      const { stdout } = await run({ BATON_DATA_DIR: dataDir });
      expect(balances(stdout)).toEqual({ alice: 140, bob: 160, carol: 0, total: 300 });
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('with --serve on a port in use (pnpm dev still running), says so and what to do, with no stack trace', async () => {
    const busy = createServer();
    await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
    const port = (busy.address() as { port: number }).port;
    try {
      const failed = await run({ PORT: String(port) }, ['--serve']).then(
        () => undefined,
        (error: { code: number; stdout: string; stderr: string }) => error,
      );
      expect(failed?.code).toBe(1);
      // The scenario ran; only the page could not be served.
      expect(balances(failed!.stdout)).toEqual({ alice: 70, bob: 80, carol: 0, total: 150 });
      expect(failed!.stderr).toContain(`port ${port} is in use (is pnpm dev running?)`);
      expect(failed!.stderr).toContain("PORT=3002 pnpm start (pnpm dev's inspector has 3001)");
      expect(failed!.stderr).not.toMatch(/EADDRINUSE|\n\s+at /);
    } finally {
      busy.close();
    }
  });
});
