/**
 * `pnpm pack:all [folder]`: builds every package and writes the tarball of each publishable one
 * to one folder (`packed/` by default) — what `baton init <app> --from <folder>` installs from
 * until the packages are published. Every package is built from nothing, so a tarball holds the
 * outputs of today's sources alone. The build's errors, if any, are shown, and nothing is packed.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '..');
const out = resolve(process.argv[2] ?? join(root, 'packed'));

/** The packages a user installs: every one under packages/ that is not private. */
const packages = readdirSync(join(root, 'packages'))
  .map((folder) => join(root, 'packages', folder))
  .filter((dir) => JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).private !== true);

const run = (cwd: string, args: string[]) =>
  execFileSync('pnpm', args, { cwd, stdio: ['ignore', 'ignore', 'inherit'] });

/** The files a package's published exports and bin name that its build has not written. */
const unbuilt = (dir: string): string[] => {
  type Target = string | Record<string, string>;
  const {
    publishConfig: published = {},
  }: {
    publishConfig?: { exports?: Record<string, Target>; bin?: Record<string, string> };
  } = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
  const targets: Target[] = [
    ...Object.values(published.exports ?? {}),
    ...Object.values(published.bin ?? {}),
  ];
  return targets
    .flatMap((target) => (typeof target === 'string' ? [target] : Object.values(target)))
    .filter((file) => !existsSync(join(dir, file)))
    .map((file) => relative(root, join(dir, file)));
};
/** Builds every package, its errors shown (tsc writes them to stdout); exits 1 if it fails. */
const build = (...args: string[]) => {
  try {
    execFileSync('pnpm', ['run', '--silent', 'build', ...args], { cwd: root, stdio: 'inherit' });
  } catch {
    console.error('pnpm pack:all: the build failed, with the errors above; nothing was packed');
    process.exit(1);
  }
};

// From nothing: the build trusts its record of what it wrote, kept apart from dist/, so a dist/
// deleted since would read as built and pack empty, and it never removes the output of a source
// deleted since, which would be packed and shipped.
for (const folder of readdirSync(join(root, 'packages'))) {
  rmSync(join(root, 'packages', folder, 'dist'), { recursive: true, force: true });
}
build('--force');
const missing = packages.flatMap(unbuilt);
if (missing.length > 0) {
  console.error(
    `pnpm pack:all: the build wrote no ${missing.join(', ')}; nothing was packed. Check each package's tsconfig.build.json`,
  );
  process.exit(1);
}
mkdirSync(out, { recursive: true });
// Tarballs of an earlier version would be installed beside the new ones.
for (const file of readdirSync(out)) {
  if (/^(baton-|create-baton-).*\.tgz$/.test(file)) rmSync(join(out, file));
}
for (const dir of packages) run(dir, ['pack', '--pack-destination', out]);
const shown = relative(process.cwd(), out) || '.';
console.log(
  [
    `${packages.length} packages packed into ${shown}. A new app from them (installed with npm):`,
    `  pnpm exec baton init ../my-app --from ${shown}`,
    'An app made from them before takes these with npm update in its folder (npm install keeps the',
    'packages it installed: the tarballs keep their names and versions).',
  ].join('\n'),
);
