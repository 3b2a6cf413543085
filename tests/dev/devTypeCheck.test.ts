/**
 * `baton dev` checks the app's types with its own tsconfig.json after each change, while the
 * app runs (esbuild only strips them): the errors are printed, the app keeps running (or the
 * report says it does not), and a fix is told.
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

/** A check runs at low priority: on a loaded 2-core host beside other tests it takes a minute. */
const CHECK_MS = 120_000;
const told = (pattern: RegExp, since = 0) =>
  expect.poll(() => dev!.output().slice(since), { timeout: CHECK_MS }).toMatch(pattern);
const version = () =>
  postJson(`${dev!.origin}/ask`, { to: 'counter/c', name: 'version', payload: {} });

beforeAll(async () => {
  dir = copyFixtureApp('counter');
  writeFileSync(
    join(dir, 'tsconfig.json'),
    JSON.stringify({ extends: '../../../tsconfig.json', include: ['src'] }),
  );
  const port = await freePort();
  dev = await startDevProcess([join(dir, 'src/app.ts'), '--port', String(port), '--in-memory']);
});

afterAll(async () => {
  await dev?.stop('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

describe("baton dev's type check", () => {
  it(
    'names the tsconfig.json it checks with, and finds a correct app without errors',
    async () => {
      expect(dev!.output()).toMatch(
        / {2}types {6}checked with \S+tsconfig\.json after each change/,
      );
      await told(/baton dev: no type errors/);
    },
    CHECK_MS,
  );

  it(
    'prints a type error with its place while the changed app runs, then tells that it is fixed',
    async () => {
      const file = join(dir, 'src/version.ts');
      const before = readFileSync(file, 'utf8');
      const since = dev!.output().length;
      writeFileSync(file, `${before}export const BROKEN: number = 'text';\n`);
      await told(
        /baton dev: 1 type error \(the app runs anyway; fix it and save\):\n {2}\S*src\/version\.ts\(\d+,\d+\): error TS2322: Type 'string' is not assignable to type 'number'\./,
        since,
      );
      expect(dev!.output().slice(since)).toMatch(/the app is running again/);
      expect((await version()).status).toBe(200);

      const fixing = dev!.output().length;
      writeFileSync(file, before);
      await told(/baton dev: the type errors are fixed/, fixing);
      expect(dev!.output().slice(fixing)).not.toMatch(/type error \(/);
    },
    2 * CHECK_MS,
  );

  it(
    'names an import that will be undefined as soon as it builds, and says the app is not running beside the type error',
    async () => {
      const file = join(dir, 'src/version.ts');
      const before = readFileSync(file, 'utf8');
      writeFileSync(join(dir, 'src/helper.ts'), 'export const one = 1;\n');
      const since = dev!.output().length;
      // A typo the app throws on while it loads (`helper.onee is not a function`).
      writeFileSync(
        file,
        `import * as helper from './helper.ts';\n${before}export const BROKEN = helper.onee();\n`,
      );
      await told(
        /the app will meet undefined: \S*src\/version\.ts:3:\d+: Import "onee" will always be undefined/,
        since,
      );
      await told(
        /baton dev: 1 type error \(the app is not running either: see above; fix it and save\):\n {2}\S*src\/version\.ts\(3,\d+\): error TS2551: Property .onee. does not exist/,
        since,
      );
      const fixing = dev!.output().length;
      writeFileSync(file, before);
      await told(/the app is running again/, fixing);
      await told(/baton dev: the type errors are fixed/, fixing);
      expect((await version()).status).toBe(200);
    },
    2 * CHECK_MS,
  );
});
