/**
 * The README's commands, typed as it writes them (through pnpm, from the repository's root), on
 * the Node that runs this test: Node 20 in `pnpm test`, Node 22 in `pnpm test:node22`.
 */
import { execFile, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..');

async function pnpm(args: string[]): Promise<string> {
  const { stdout, stderr } = await promisify(execFile)('pnpm', args, { cwd: root });
  return `${stdout}${stderr}`;
}

describe("the README's commands", () => {
  it('run on the Node that runs this test', async () => {
    expect((await pnpm(['exec', 'node', '--version'])).trim()).toBe(process.version);
  });

  it('`pnpm exec baton --help` prints the usage', async () => {
    expect(await pnpm(['exec', 'baton', '--help'])).toMatch(/^Usage: baton init <folder>/m);
  }, 60_000);

  it('`pnpm --filter @baton/example-bank token alice` prints a token', async () => {
    const output = await pnpm(['--silent', '--filter', '@baton/example-bank', 'token', 'alice']);
    expect(output.split('\n')[0]).toMatch(/^[\w-]+\.[\w-]+$/);
  }, 60_000);

  it.each([
    'pnpm dev',
    'pnpm --filter @baton/example-chirper dev',
    'pnpm --filter @baton/example-orders dev',
  ])(
    '`%s` serves the page and exits 0 on Ctrl-C',
    async (command) => {
      const args = [...command.split(' ').slice(1), '--port', '0', '--in-memory'];
      // In a process group of its own, which Ctrl-C signals as a whole, as a terminal does.
      const dev = spawn('pnpm', args, {
        cwd: root,
        stdio: ['ignore', 'pipe', 'pipe'],
        detached: true,
      });
      let output = '';
      dev.stdout!.on('data', (chunk) => (output += chunk));
      dev.stderr!.on('data', (chunk) => (output += chunk));
      const exited = new Promise<number | null>((resolve) => dev.once('exit', resolve));
      try {
        await expect
          .poll(() => output, { timeout: 60_000 })
          .toMatch(/baton dev: ready at http:\/\/127\.0\.0\.1:\d+\//);
        const origin = /ready at (http:\/\/127\.0\.0\.1:\d+)\//.exec(output)![1]!;
        const page = await fetch(`${origin}/`);
        expect(page.status).toBe(200);
        expect(await page.text()).toContain('<script');
        if (command === 'pnpm dev') {
          // What the README shows `pnpm dev` printing: the folders it watches, as it says. How many
          // folders the app is built from moves with the workspace, so the count is any number.
          const readme = readFileSync(join(root, 'README.md'), 'utf8');
          const shown = /```text\nbaton dev: ready[\s\S]*?\n(Watching [^\n]+)\n[^`]*```/.exec(
            readme,
          );
          const [before, after] = shown![1]!.split(/\d+ more folders/);
          expect(after, 'the README shows the count of watched folders').toBeDefined();
          const literal = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
          expect(output).toMatch(
            new RegExp(`${literal(before!)}\\d+ more folders${literal(after!)}`),
          );
          // The inspector on a port of its own, at the path the README shows.
          const inspectorAt = (text: string) =>
            new URL(/\n {2}inspector {2}(\S+)\n/.exec(text)![1]!);
          const shownInspector = inspectorAt(readme);
          const printedInspector = inspectorAt(output);
          expect(printedInspector.pathname).toBe(shownInspector.pathname);
          expect(printedInspector.port).not.toBe(new URL(origin).port);
          expect(shownInspector.port).not.toBe(new URL(/ready at (\S+)/.exec(readme)![1]!).port);
          // And the project it checks the types with.
          const types = /\n( {2}types {6}[^\n]+)\n/.exec(readme)![1]!;
          expect(output).toContain(types);
        }
        process.kill(-dev.pid!, 'SIGINT');
        expect(await exited, output).toBe(0);
        expect(output).not.toMatch(/ELIFECYCLE|ERR_/);
      } finally {
        if (dev.exitCode === null && dev.signalCode === null) process.kill(-dev.pid!, 'SIGKILL');
      }
    },
    90_000,
  );
});
