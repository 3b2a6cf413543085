/**
 * `pnpm test:node22 [vitest arguments]`: runs the tests of what a user types — the README's
 * commands, its embedded example, `baton dev` and a new app's first hour — again on Node 22.
 * Node 22 comes from the npm package `node-<platform>-<arch>` (a Node binary in a registry
 * package), kept in node_modules/.cache, and goes first on PATH, so vitest, pnpm, npm and every
 * process they start run on it. Not part of `pnpm test`: the first run downloads about 50 MB.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { delimiter, join, resolve } from 'node:path';

const VERSION = '22.23.3';
const DEFAULT_TESTS = [
  'tests/readmeCommands.test.ts',
  'tests/readme.test.ts',
  'tests/dev/devCommand.test.ts',
  'tests/firsthour',
];

const root = resolve(import.meta.dirname, '..');
const home = join(root, 'node_modules', '.cache', `node-${VERSION}`);
const node = join(home, 'bin', 'node');

if (process.platform !== 'linux' && process.platform !== 'darwin') {
  console.error(
    `test:node22: no Node binary package for ${process.platform}; install Node 22 and run ` +
      `\`pnpm vitest run ${DEFAULT_TESTS.join(' ')}\` with it first on PATH.`,
  );
  process.exit(1);
}

if (!existsSync(node)) {
  const spec = `node-${process.platform}-${process.arch}@${VERSION}`;
  console.log(`test:node22: fetching Node ${VERSION} (${spec}, about 50 MB, once)…`);
  const scratch = mkdtempSync(join(root, 'node_modules', '.cache', 'node-download-'));
  try {
    const [tarball] = JSON.parse(
      execFileSync('npm', ['pack', spec, '--json', '--pack-destination', scratch], {
        encoding: 'utf8',
        // Without the npm_* settings pnpm hands its scripts (npm warns of those it does not know).
        env: Object.fromEntries(
          Object.entries(process.env).filter(([name]) => !/^npm_/i.test(name)),
        ),
      }),
    ) as { filename: string }[];
    mkdirSync(home, { recursive: true });
    execFileSync('tar', [
      '-xzf',
      join(scratch, tarball!.filename),
      '-C',
      home,
      '--strip-components=1',
    ]);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

const version = execFileSync(node, ['--version'], { encoding: 'utf8' }).trim();
if (version !== `v${VERSION}`) {
  console.error(`test:node22: ${node} is ${version}, not v${VERSION}; delete ${home} and rerun.`);
  process.exit(1);
}

const args = process.argv.slice(2);
const env = { ...process.env, PATH: `${join(home, 'bin')}${delimiter}${process.env.PATH ?? ''}` };
console.log(`test:node22: running on Node ${version}`);
const run = spawnSync(
  'pnpm',
  [
    'exec',
    'vitest',
    'run',
    '--typecheck.enabled=false',
    // One file at a time: the README's `pnpm dev` and `pnpm start` begin with `pnpm install`,
    // which can relink node_modules/.bin while another file runs `tsx` from it (seen once in CI
    // as "tsx: Permission denied").
    '--fileParallelism=false',
    ...(args.length > 0 ? args : DEFAULT_TESTS),
  ],
  { cwd: root, env, stdio: 'inherit' },
);
process.exit(run.status ?? 1);
