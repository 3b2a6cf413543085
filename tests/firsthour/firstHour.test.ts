/**
 * A new app's first hour, as a user outside this repository lives it: every package packed
 * (`pnpm pack:all`), an app scaffolded in a temporary folder with `pnpm exec baton init --from
 * <tarballs>` and installed by npm without a warning (third-party packages from the registry,
 * through npm's cache), then its own scripts — `npm run dev` serves the page and Chromium sees a
 * live update and a failing query's error, Ctrl-C exits 0, `npm test` passes, `npm run synth`
 * bundles every function and is cdk-nag clean and quiet; a newer Baton packed again reaches the
 * app with the command the README gives.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../browser/launchChromium.ts';
import { freePort, ROOT } from '../dev/devProcess.ts';
import { packedOnce } from '../pack/packedOnce.ts';

const scratch = mkdtempSync(join(tmpdir(), 'baton-first-hour-'));
const packed = join(scratch, 'packed');
const app = join(scratch, 'my-app');
// npm as a user runs it in a terminal: without the npm_* settings pnpm gives the processes it
// runs (npm warns of those it does not know), offline where its cache allows.
const env = {
  ...Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^npm_/i.test(name))),
  npm_config_prefer_offline: 'true',
  npm_config_audit: 'false',
  npm_config_fund: 'false',
  npm_config_update_notifier: 'false',
  CDK_DISABLE_CLI_TELEMETRY: 'true',
};

/** Runs a command to its end; fails with its output. */
async function sh(cwd: string, command: string, args: string[]): Promise<string> {
  try {
    const { stdout, stderr } = await promisify(execFile)(command, args, {
      cwd,
      env,
      maxBuffer: 64 * 1024 * 1024,
    });
    return `${stdout}${stderr}`;
  } catch (error) {
    const { stdout, stderr } = error as { stdout?: string; stderr?: string };
    throw new Error(`${command} ${args.join(' ')} failed in ${cwd}:\n${stdout}\n${stderr}`);
  }
}

let browser: Browser | undefined;
let dev: ChildProcess | undefined;
let init = '';
let pack = '';

beforeAll(async () => {
  ({ output: pack } = await packedOnce(packed));
  // The workspace's `baton`, run as the README says before the packages are published.
  init = await sh(ROOT, 'pnpm', ['exec', 'baton', 'init', app, '--from', packed]);
}, 600_000);

afterAll(async () => {
  await browser?.close();
  if (dev?.exitCode === null) process.kill(-dev.pid!, 'SIGKILL');
  rmSync(scratch, { recursive: true, force: true });
}, 60_000);

describe('the first hour of a new app, from the packed packages, with npm', () => {
  it('installs every @baton/* package from the tarballs, without a warning from npm', () => {
    const lock = JSON.parse(readFileSync(join(app, 'package-lock.json'), 'utf8'));
    const baton = Object.entries<{ resolved?: string }>(lock.packages).filter(([path]) =>
      path.startsWith('node_modules/@baton/'),
    );
    expect(baton.length).toBeGreaterThanOrEqual(6);
    for (const [path, { resolved }] of baton) expect(resolved, path).toMatch(/^file:/);
    // Neither of pnpm's settings npm does not know, nor of an install script it skipped.
    expect(init).toContain('baton init: created my-app');
    expect(init).not.toMatch(/npm warn/i);
  });

  it('serves its page in dev, live, and stops on Ctrl-C with status 0', async () => {
    const port = await freePort();
    // In a process group of its own, which Ctrl-C signals as a whole, as a terminal does.
    dev = spawn(
      'npm',
      ['run', 'dev', '--', '--port', String(port), '--inspector-port', '0', '--in-memory'],
      {
        cwd: app,
        env,
        stdio: ['ignore', 'pipe', 'pipe'],
        detached: true,
      },
    );
    let output = '';
    dev.stdout!.on('data', (chunk) => (output += chunk));
    dev.stderr!.on('data', (chunk) => (output += chunk));
    const exited = new Promise<number | null>((resolve) => dev!.once('exit', resolve));
    await expect.poll(() => output, { timeout: 60_000 }).toContain('baton dev: ready at');
    // Its own folder, as the Baton packages are installed (not the working directory, where
    // baton dev's virtual entry sits): the line the CLI's README shows.
    expect(output).toContain('\nWatching src for changes. Ctrl-C stops.\n');
    const origin = `http://127.0.0.1:${port}`;
    browser = await launchChromium();
    const page = await browser.newPage();
    await page.goto(origin);
    const count = () => page.locator('#count').textContent();
    await expect.poll(count, { timeout: 15_000 }).toBe('0');
    // A send from outside (curl, another service) shows up on the open page.
    const sent = await fetch(`${origin}/send`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        to: 'counter/main',
        name: 'add',
        payload: { by: 5 },
        idempotencyKey: 'first-hour',
      }),
    });
    expect(sent.status).toBe(202);
    await expect.poll(count, { timeout: 15_000 }).toBe('5');
    // And one from the page itself.
    await page.getByRole('button', { name: 'Add one' }).click();
    await expect.poll(count, { timeout: 15_000 }).toBe('6');
    expect(output).toMatch(/info +counter\/main: added by=5 count=5/);
    // A query that fails shows on the page, not as a count waited for: saved so that it throws,
    // it reloads the app, and the open page resumes its query and says why there is no count.
    const queries = join(app, 'src/queries.ts');
    const source = readFileSync(queries, 'utf8');
    const counted = '(await ctx.get(Counter.ref(key))).count';
    expect(source).toContain(counted);
    writeFileSync(queries, source.replace(counted, "{ throw new Error('no count today'); }"));
    await expect
      .poll(async () => (await page.getByRole('alert').allTextContents()).join(), {
        timeout: 30_000,
      })
      .toContain('The count could not be read');
    expect(output).toContain('no count today'); // the error's text is in the terminal
    writeFileSync(queries, source);
    process.kill(-dev.pid!, 'SIGINT');
    expect(await exited).toBe(0);
  }, 120_000);

  it('passes its own test', async () => {
    expect(await sh(app, 'npm', ['test'])).toMatch(/1 passed/);
  }, 120_000);

  it('synthesizes its stack, every function bundled, cdk-nag clean and without npm warnings', async () => {
    const output = await sh(app, 'npm', ['run', 'synth']);
    expect(output).not.toMatch(/npm warn/i);
    // Its cdk.json sets the CDK's recommended feature flags: the CLI has none to point out.
    expect(output).not.toMatch(/feature flags/i);
    const template = JSON.parse(readFileSync(join(app, 'cdk.out/MyApp.template.json'), 'utf8'));
    expect(Object.keys(template.Outputs)).toEqual(
      expect.arrayContaining(['IngressUrl', 'WebSocketUrl']),
    );
    const functions = Object.values<{ Type: string; Metadata?: Record<string, string> }>(
      template.Resources,
    ).filter((resource) => resource.Type === 'AWS::Lambda::Function');
    expect(functions).toHaveLength(7);
  }, 300_000);

  it("takes a newer Baton, packed again, with the README's command (npm install keeps the old one)", async () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8').replace(/\s+/g, ' ');
    const command = /To take a newer Baton later .*?, run `(npm [^`]+)` in the app/.exec(
      readme,
    )?.[1];
    expect(command, "the README's command").toBeDefined();
    // pnpm pack:all says it too, where the newer tarballs are made.
    expect(pack.replace(/\s+/g, ' ')).toContain(`takes these with ${command} in its folder`);
    // A newer @baton/testing, as pnpm pack:all writes it again: same name, same version.
    const tarball = join(packed, 'baton-testing-0.1.0.tgz');
    const unpacked = join(scratch, 'newer');
    mkdirSync(unpacked);
    await sh(unpacked, 'tar', ['xzf', tarball]);
    writeFileSync(join(unpacked, 'package', 'NEWER.md'), 'a newer Baton\n');
    await sh(unpacked, 'tar', ['czf', tarball, 'package']);
    const newer = join(app, 'node_modules', '@baton', 'testing', 'NEWER.md');
    await sh(app, 'npm', ['install']);
    expect(existsSync(newer)).toBe(false);
    const [npm, ...args] = command!.split(' ');
    await sh(app, npm!, args);
    expect(existsSync(newer)).toBe(true);
  }, 300_000);
});
