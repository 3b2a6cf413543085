/**
 * `baton dev` reloads the app when any local file it is built from changes, not only those in
 * the entry's folder: here a module one folder up, shared as in a monorepo.
 */
import { rmSync, writeFileSync } from 'node:fs';
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
  });
});
