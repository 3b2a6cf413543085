import {
  cpSync,
  existsSync,
  readdirSync,
  readFileSync,
  renameSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { BatonError, ErrorCode } from '@baton/core';
import {
  APP_DEPENDENCIES,
  APP_DEV_DEPENDENCIES,
  BATON_DEPENDENCIES,
  BATON_DEV_DEPENDENCIES,
} from './versions.ts';

/** The app a new project starts from, shipped with this package. */
const TEMPLATE = join(import.meta.dirname, '..', '..', 'template');

export interface ScaffoldOptions {
  /** The folder to create (it may exist if empty). */
  readonly dir: string;
  /**
   * A folder of packed tarballs (`pnpm pack:all` in Baton's repository): every `@baton/*`
   * package comes from there rather than from the registry.
   */
  readonly from?: string;
}

/**
 * Writes a new app into `dir`: an actor with a durable timer, a live query, a page with
 * `useQuery`, a simulation test, a CDK stack with `BatonApp`, and the scripts `dev`, `test`,
 * `synth` and `deploy`. Installs nothing. Returns the app's package name.
 *
 * @example
 * scaffold({ dir: 'my-app', from: '../baton/packed' }); // 'my-app'
 */
export function scaffold(options: ScaffoldOptions): string {
  const dir = resolve(options.dir);
  if (existsSync(dir) && (!statSync(dir).isDirectory() || readdirSync(dir).length > 0)) {
    throw new BatonError(
      ErrorCode.INVALID_ARGUMENT,
      `${dir} exists and is not an empty folder: name a new folder for the app`,
    );
  }
  const name = packageName(basename(dir));
  const baton = batonSpecs(options.from);
  cpSync(TEMPLATE, dir, { recursive: true });
  // npm leaves a package's .gitignore out of its tarball: the template ships it without the dot.
  renameSync(join(dir, 'gitignore'), join(dir, '.gitignore'));
  const fill = (file: string, from: string, to: string) =>
    writeFileSync(join(dir, file), readFileSync(join(dir, file), 'utf8').replaceAll(from, to));
  fill('README.md', 'APP_NAME', name);
  fill('infra/app.ts', 'STACK_NAME', stackName(name));
  const manifest = {
    name,
    version: '0.1.0',
    private: true,
    type: 'module',
    engines: { node: '>=20' },
    scripts: {
      // `exec`: the shell npm runs the script in would die of Ctrl-C before baton dev stops cleanly.
      dev: 'exec baton dev src/app.ts',
      // Types first: neither vitest nor cdk (which runs the stack through tsx) checks them, and
      // a handler's type error would otherwise run, and commit, unseen. The app's project holds
      // src alone, which baton dev checks after each save; infra's, with aws-cdk-lib's thousands
      // of declarations, is checked before a synth or a deploy.
      test: 'tsc --noEmit -p . && vitest run',
      synth: 'tsc --noEmit -p infra && cdk synth --quiet --no-notices',
      deploy: 'tsc --noEmit -p infra && cdk deploy --no-notices',
    },
    dependencies: sorted({ ...pick(baton, BATON_DEPENDENCIES), ...APP_DEPENDENCIES }),
    devDependencies: sorted({ ...pick(baton, BATON_DEV_DEPENDENCIES), ...APP_DEV_DEPENDENCIES }),
    // npm 11 runs a dependency's install script only once the app allows it, and warns of each
    // it skipped: esbuild's checks its binary (Baton's own workspace allows it the same way).
    allowScripts: { esbuild: true },
    // The tarballs' own @baton/* dependencies come from the same folder.
    ...(options.from === undefined ? {} : { overrides: baton }),
  };
  writeFileSync(join(dir, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  return name;
}

/** Where each `@baton/*` package comes from: this CLI's version on the registry, or a tarball. */
function batonSpecs(from: string | undefined): Record<string, string> {
  if (from === undefined) {
    const version = JSON.parse(
      readFileSync(join(import.meta.dirname, '..', '..', 'package.json'), 'utf8'),
    ).version;
    const all = [...BATON_DEPENDENCIES, ...BATON_DEV_DEPENDENCIES];
    return Object.fromEntries(all.map((name) => [`@baton/${name}`, `^${version}`]));
  }
  const folder = resolve(from);
  const specs: Record<string, string> = {};
  for (const file of existsSync(folder) ? readdirSync(folder) : []) {
    const match = /^baton-(.+)-\d+\.\d+\.\d+(?:-[\w.]+)?\.tgz$/.exec(file);
    if (match) specs[`@baton/${match[1]}`] = `file:${join(folder, file)}`;
  }
  const missing = [...BATON_DEPENDENCIES, ...BATON_DEV_DEPENDENCIES].filter(
    (name) => specs[`@baton/${name}`] === undefined,
  );
  if (missing.length > 0) {
    throw new BatonError(
      ErrorCode.INVALID_ARGUMENT,
      `${folder} lacks the tarballs of ${missing.map((name) => `@baton/${name}`).join(', ')}: run pnpm pack:all in Baton's repository and pass the folder it prints`,
    );
  }
  return specs;
}

function pick(specs: Record<string, string>, names: readonly string[]): Record<string, string> {
  return Object.fromEntries(names.map((name) => [`@baton/${name}`, specs[`@baton/${name}`]!]));
}

function sorted(record: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(record).sort(([a], [b]) => a.localeCompare(b)));
}

/** A valid npm package name made of a folder's name. */
function packageName(folder: string): string {
  const name = folder
    .toLowerCase()
    .replace(/[^a-z0-9._-]+/g, '-')
    .replace(/^[._-]+|-+$/g, '');
  return name || 'baton-app';
}

/** A CloudFormation stack name (letters, digits, hyphens; a letter first). */
function stackName(name: string): string {
  const pascal = name
    .split(/[^a-zA-Z0-9]+/)
    .filter(Boolean)
    .map((part) => part[0]!.toUpperCase() + part.slice(1))
    .join('');
  return /^[A-Za-z]/.test(pascal) ? pascal : `App${pascal}`;
}
