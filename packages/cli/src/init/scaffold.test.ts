import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { initCommand } from './initCommand.ts';
import { scaffold } from './scaffold.ts';
import { APP_DEPENDENCIES, APP_DEV_DEPENDENCIES } from './versions.ts';

const root = join(import.meta.dirname, '../../../..');
const scratch: string[] = [];
const temp = () => {
  const dir = mkdtempSync(join(tmpdir(), 'baton-init-'));
  scratch.push(dir);
  return dir;
};
afterEach(() => {
  for (const dir of scratch.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A folder with a tarball (empty: only its name is read) for each named package. */
function tarballs(...names: string[]): string {
  const dir = temp();
  for (const name of names) writeFileSync(join(dir, `baton-${name}-0.1.0.tgz`), '');
  writeFileSync(join(dir, 'create-baton-0.1.0.tgz'), '');
  return dir;
}

describe('baton init', () => {
  it('writes an app whose every @baton/* package comes from the tarballs, with its four scripts', () => {
    const names = ['aws', 'cdk', 'cli', 'client', 'core', 'embedded', 'react', 'server', 'testing'];
    const from = tarballs(...names);
    const dir = join(temp(), 'My App');
    expect(scaffold({ dir, from })).toBe('my-app');
    const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
    expect(Object.keys(manifest.scripts)).toEqual(['dev', 'test', 'synth', 'deploy']);
    // npm 11 skips (and warns of) install scripts the app does not allow: esbuild's is allowed.
    expect(manifest.allowScripts).toEqual({ esbuild: true });
    expect(manifest.dependencies['@baton/core']).toBe(`file:${join(from, 'baton-core-0.1.0.tgz')}`);
    expect(manifest.devDependencies['@baton/cli']).toBe(
      `file:${join(from, 'baton-cli-0.1.0.tgz')}`,
    );
    // What an app's tests and a local server import, listed already: npm refuses to add a
    // package whose override points at a tarball (EOVERRIDE).
    for (const name of ['embedded', 'server']) {
      expect(manifest.devDependencies[`@baton/${name}`]).toBe(manifest.overrides[`@baton/${name}`]);
    }
    // The tarballs' own dependencies on each other too (@baton/cdk needs @baton/aws).
    expect(manifest.overrides['@baton/aws']).toBe(`file:${join(from, 'baton-aws-0.1.0.tgz')}`);
    expect(manifest.overrides['create-baton']).toBeUndefined();
    for (const file of [
      'src/app.ts',
      'src/counter.ts',
      'src/queries.ts',
      'src/web/page.tsx',
      'src/counter.test.ts',
      'infra/app.ts',
      'infra/tsconfig.json',
      'cdk.json',
      'tsconfig.json',
      '.gitignore',
    ]) {
      expect(existsSync(join(dir, file)), file).toBe(true);
    }
    expect(readFileSync(join(dir, 'infra/app.ts'), 'utf8')).toContain("new Stack(app, 'MyApp')");
  });

  it('refuses a folder that is not empty, and tarballs that lack a package, saying what to do', () => {
    const used = temp();
    writeFileSync(join(used, 'notes.txt'), '');
    expect(() => scaffold({ dir: used })).toThrow(/not an empty folder: name a new folder/);
    const from = tarballs('core', 'client');
    expect(() => scaffold({ dir: join(temp(), 'app'), from })).toThrow(
      /lacks the tarballs of @baton\/react, @baton\/cli, @baton\/testing, @baton\/cdk, @baton\/embedded, @baton\/server: run pnpm pack:all/,
    );
  });

  it('leaves nothing behind when npm cannot install from the registry, and says where the packages come from until Baton is published', async () => {
    // A registry nobody answers on: npm fails at once, as it does today with a 404.
    vi.stubEnv('npm_config_registry', 'http://127.0.0.1:9/');
    vi.stubEnv('npm_config_fetch_retries', '0');
    vi.spyOn(console, 'log').mockImplementation(() => {});
    try {
      const empty = temp();
      const dir = join(temp(), 'app');
      for (const [folder, kept] of [
        [dir, false],
        [empty, true],
      ] as const) {
        await expect(initCommand([folder])).rejects.toThrow(
          `; nothing is left in ${folder}. If npm found no @baton/* package (404), Baton is not on the registry yet: run pnpm pack:all in Baton's repository, then baton init ${folder} --from <repository>/packed`,
        );
        // A folder it made is gone; one that was there, empty, is empty again: init runs again.
        expect(existsSync(folder)).toBe(kept);
        if (kept) expect(readdirSync(folder)).toEqual([]);
      }
    } finally {
      vi.unstubAllEnvs();
      vi.restoreAllMocks();
    }
  }, 60_000);

  it('pins what an app uses besides Baton to the versions this repository tests with', () => {
    const workspace = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).devDependencies;
    const infra = JSON.parse(
      readFileSync(join(root, 'infra/package.json'), 'utf8'),
    ).devDependencies;
    for (const [name, version] of Object.entries({
      ...APP_DEPENDENCIES,
      ...APP_DEV_DEPENDENCIES,
    })) {
      expect(version, name).toBe(workspace[name] ?? infra[name]);
    }
  });

  it("sets the CDK's recommended feature flags of the aws-cdk-lib it pins in cdk.json, as cdk init does", () => {
    const cdkLib = createRequire(join(root, 'infra/package.json'));
    const recommended = cdkLib('aws-cdk-lib/recommended-feature-flags.json');
    expect(cdkLib('aws-cdk-lib/package.json').version).toBe(APP_DEV_DEPENDENCIES['aws-cdk-lib']);
    // The app's, and infra/'s: on a newer aws-cdk-lib, copy its recommended-feature-flags.json in.
    for (const file of ['packages/cli/template/cdk.json', 'infra/cdk.json']) {
      expect(JSON.parse(readFileSync(join(root, file), 'utf8')).context, file).toEqual(recommended);
    }
  });

  it('is what create-baton runs', async () => {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['--import', 'tsx', join(root, 'packages/create-baton/bin/create-baton.js'), '--help'],
      { cwd: root },
    );
    expect(stdout).toContain('Usage: baton init <folder> [options]');
  });
});
