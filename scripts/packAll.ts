/**
 * `pnpm pack:all [folder]`: builds every package and writes the tarball of each publishable one
 * to one folder (`packed/` by default) — what `baton init <app> --from <folder>` installs from
 * until the packages are published.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '..');
const out = resolve(process.argv[2] ?? join(root, 'packed'));

/** The packages a user installs: every one under packages/ that is not private. */
const packages = readdirSync(join(root, 'packages'))
  .map((folder) => join(root, 'packages', folder))
  .filter((dir) => JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).private !== true);

const run = (cwd: string, args: string[]) =>
  execFileSync('pnpm', args, { cwd, stdio: ['ignore', 'ignore', 'inherit'] });

run(root, ['run', 'build']);
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
