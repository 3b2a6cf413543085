/**
 * `baton dev` reloads the app when any local file it is built from changes, not only those in
 * the entry's folder: here a module one folder up, shared as in a monorepo.
 */
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  copyFixtureApp,
  type DevProcess,
  freePort,
  postJson,
  startDevProcess,
} from './devProcess.ts';

let dir: string;
let dev: DevProcess | undefined;

const greet = () => postJson(`${dev!.origin}/ask`, { to: 'greeter/g', name: 'greet', payload: {} });

beforeAll(async () => {
  dir = copyFixtureApp('shared-import');
  const port = await freePort();
  dev = await startDevProcess([join(dir, 'app/src/app.ts'), '--port', String(port), '--in-memory']);
});

afterAll(async () => {
  await dev?.stop('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

describe('baton dev reload', () => {
  it('says that it watches folders outside the entry folder', () => {
    expect(dev!.output()).toMatch(/Watching \S+ and \d+ more folders? the app is built from/);
  });

  it('reloads the app when a module imported from outside the entry folder changes', async () => {
    expect((await greet()).body).toEqual({ value: 'hello #1' });
    writeFileSync(join(dir, 'shared/greeting.ts'), "export const GREETING = 'hi';\n");
    await expect
      .poll(async () => (await greet()).body.value, { timeout: 15_000 })
      .toMatch(/^hi #\d+$/);
    expect(dev!.output()).toMatch(/shared\/greeting\.ts changed: reloading the app/);
    await expect.poll(() => dev!.output(), { timeout: 15_000 }).toMatch(/the app is running again/);
  });

  it('says what an entry must export when it exports no app, then that the app runs again once it does', async () => {
    const entry = join(dir, 'app/src/app.ts');
    const app = readFileSync(entry, 'utf8');
    const told = (pattern: RegExp) =>
      expect.poll(() => dev!.output(), { timeout: 15_000 }).toMatch(pattern);
    const musts = 'the entry must end with export default defineApp\\(\\{ actors, queries \\}\\)';
    writeFileSync(entry, app.replace('export default defineApp', 'export const app = defineApp'));
    // Said of the entry itself, not of baton dev's own module that imports it.
    await told(
      new RegExp(
        `the app does not build; fix it and save:\\nNo matching export in "[^"]*app\\.ts" for import "default": ${musts}`,
      ),
    );
    expect(dev!.output()).not.toContain('baton-dev-app');
    writeFileSync(
      entry,
      app.replace('export default defineApp({ actors: [Greeter] })', 'export default 42'),
    );
    await told(new RegExp(`its default export is number: ${musts}`));
    // An app object written by hand, without defineApp: refused at load, not failing later.
    writeFileSync(
      entry,
      app.replace(
        'export default defineApp({ actors: [Greeter] })',
        'export default { actors: [Greeter], queries: [] }',
      ),
    );
    await told(
      new RegExp(
        `its default export is an object defineApp did not make \\(it has no workflows, effects\\): ${musts}`,
      ),
    );
    // defineApp's own refusal, as one line too; baton dev goes on, waiting for the fix.
    writeFileSync(entry, app.replace('actors: [Greeter]', 'actors: [Greeter, Greeter]'));
    await told(
      /\nthe app failed to start: invalid app: two actor types are named "greeter"\nthe app stopped before it was ready: fix it and save to try again\n/,
    );
    expect(dev!.output()).not.toMatch(/BatonError|^\s+at defineApp/m);
    const before = dev!.output().split('the app is running again').length;
    writeFileSync(entry, app);
    await expect
      .poll(() => dev!.output().split('the app is running again').length, { timeout: 15_000 })
      .toBe(before + 1);
    expect((await greet()).body.value).toMatch(/^hi #\d+$/);
  });
});
