import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { findTypeProject, readTscOutput, WatchOutputReader } from './TypeChecker.ts';

const ROOT = new URL('../../../../', import.meta.url).pathname;
const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A folder with `files` (path → text), inside the repository or outside it. */
function folder(files: Record<string, string>, inside: boolean): string {
  const dir = mkdtempSync(inside ? join(ROOT, 'tests/dev/.work-') : join(tmpdir(), 'baton-types-'));
  dirs.push(dir);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(dir, path, '..'), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
}
const same = (path: string) => path;

describe('findTypeProject', () => {
  it("takes the nearest tsconfig.json on the way up to the app's package, and its TypeScript", () => {
    const dir = folder(
      { 'package.json': '{}', 'tsconfig.json': '{}', 'src/tsconfig.json': '{}', 'src/app.ts': '' },
      true,
    );
    expect(findTypeProject(join(dir, 'src/app.ts'), same)).toEqual({
      tsconfig: join(dir, 'src/tsconfig.json'),
      tsc: realpathSync(join(ROOT, 'node_modules/typescript/bin/tsc')),
    });
    rmSync(join(dir, 'src/tsconfig.json'));
    expect(findTypeProject(join(dir, 'src/app.ts'), same)).toMatchObject({
      tsconfig: join(dir, 'tsconfig.json'),
    });
  });

  it("looks no further than the app's package, whose parent's tsconfig.json is another project's", () => {
    const dir = folder({ 'package.json': '{}', 'src/app.ts': '' }, true);
    expect(findTypeProject(join(dir, 'src/app.ts'), same)).toEqual({
      unchecked: `no tsconfig.json in ${dir} or below it on the way to ${join(dir, 'src/app.ts')}`,
    });
  });

  it('says how to install TypeScript when the project has none', () => {
    const dir = folder({ 'tsconfig.json': '{}', 'src/app.ts': '' }, false);
    expect(findTypeProject(join(dir, 'src/app.ts'), same)).toEqual({
      unchecked: `TypeScript is not installed for ${join(dir, 'tsconfig.json')} (npm install --save-dev typescript)`,
    });
  });
});

describe('readTscOutput', () => {
  it('counts each error line, keeping the lines indented under it', () => {
    const output = [
      "src/app.ts(3,7): error TS2322: Type 'string' is not assignable to type 'number'.",
      "src/bank.ts(9,1): error TS2345: Argument of type '{ n: string; }' is not assignable.",
      "  Types of property 'n' are incompatible.",
      '',
    ].join('\n');
    expect(readTscOutput(output, 2)).toEqual({ errors: 2, lines: output.split('\n').slice(0, 3) });
  });

  it('finds none in a run that passed, and keeps a failed run without error lines as one error', () => {
    expect(readTscOutput('', 0)).toEqual({ errors: 0, lines: [] });
    expect(readTscOutput("error TS5058: The specified path does not exist: 'x'.\n", 1)).toEqual({
      errors: 1,
      lines: ["error TS5058: The specified path does not exist: 'x'."],
    });
    expect(readTscOutput('Segmentation fault\n', 139)).toEqual({
      errors: 1,
      lines: ['Segmentation fault'],
    });
  });
});

describe('WatchOutputReader', () => {
  /** What `tsc --watch --preserveWatchOutput --pretty false` printed for a save and its fix. */
  const output = [
    '',
    '3:51:11 AM - Starting compilation in watch mode...',
    '',
    '',
    '3:51:16 AM - Found 0 errors. Watching for file changes.',
    '',
    '3:51:16 AM - File change detected. Starting incremental compilation...',
    '',
    "src/a.ts(1,14): error TS2322: Type 'string' is not assignable to type 'number'.",
    "src/b.ts(2,1): error TS2345: Argument of type '{ n: string; }' is not assignable.",
    "  Types of property 'n' are incompatible.",
    '',
    '3:51:16 AM - Found 2 errors. Watching for file changes.',
    '',
    '15:51:18 - File change detected. Starting incremental compilation...',
    '',
    '',
    '15:51:18 - Found 1 error. Watching for file changes.',
    '',
  ].join('\n');

  it("gives each check's error lines with tsc's count, in whatever chunks the output comes", () => {
    const whole = new WatchOutputReader().push(output);
    expect(whole).toEqual([
      { errors: 0, lines: [] },
      { errors: 2, lines: output.split('\n').slice(8, 11) },
      { errors: 1, lines: [] },
    ]);
    const reader = new WatchOutputReader();
    const byChunks = [];
    for (let i = 0; i < output.length; i += 7)
      byChunks.push(...reader.push(output.slice(i, i + 7)));
    expect(byChunks).toEqual(whole);
  });

  it('keeps what a stopped tsc printed after its last count', () => {
    const reader = new WatchOutputReader();
    expect(reader.push("error TS5058: The specified path does not exist: 'x'.\nexit")).toEqual([]);
    expect(reader.rest()).toBe("error TS5058: The specified path does not exist: 'x'.\nexit");
  });
});
