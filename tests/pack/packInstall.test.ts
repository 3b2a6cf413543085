/**
 * The packages as a user gets them: built, packed with `pnpm pack` (by `pnpm pack:all`, once a
 * run: `packedOnce.ts`), and installed from the tarballs into an app outside the workspace (no
 * workspace links) with each package README's install line as written. The app
 * (`tests/pack/app`) is type-checked with `tsc --strict` against the installed types, run with
 * plain `node`, synthesized with the CDK construct (which bundles every function from the
 * installed packages), and its worker Lambda entry is bundled with esbuild alone to check what
 * it carries (the AWS SDK left to the runtime).
 */
import { execFile } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { packedOnce } from './packedOnce.ts';

const run = promisify(execFile);
const root = new URL('../../', import.meta.url).pathname;
// The @baton/* packages (create-baton, which only runs `baton init`, has a test of its own).
const packages = readdirSync(join(root, 'packages'))
  .filter(
    (name) => readJson(join(root, 'packages', name, 'package.json')).name === `@baton/${name}`,
  )
  .sort();
const scratch = mkdtempSync(join(tmpdir(), 'baton-pack-'));
const tarballs = join(scratch, 'tarballs');
const app = join(scratch, 'app');

/** Runs a command, failing with its output when it fails. */
async function sh(cwd: string, command: string, args: string[]): Promise<string> {
  try {
    const { stdout } = await run(command, args, { cwd, maxBuffer: 64 * 1024 * 1024 });
    return stdout;
  } catch (error) {
    const { stdout, stderr } = error as { stdout?: string; stderr?: string };
    throw new Error(`${command} ${args.join(' ')} failed in ${cwd}:\n${stdout}\n${stderr}`);
  }
}

function readJson(path: string): any {
  return JSON.parse(readFileSync(path, 'utf8'));
}

/** The `pnpm add …` line of a package README's Install section, split into words. */
function installLine(name: string): string[] {
  const readme = readFileSync(join(root, 'packages', name, 'README.md'), 'utf8');
  const line = readme.match(/## Install\s+```sh\n(pnpm add [^\n]+)\n```/)?.[1];
  if (!line)
    throw new Error(`packages/${name}/README.md has no \`pnpm add\` line under ## Install`);
  return line.split(/\s+/);
}

/** The version the workspace uses of a dependency, so the install stays offline-friendly. */
function workspaceVersion(dependency: string): string {
  const manifests = [join(root, 'package.json'), join(root, 'packages/aws/package.json')];
  for (const manifest of manifests) {
    const { dependencies, devDependencies } = readJson(manifest);
    const version = devDependencies[dependency] ?? dependencies?.[dependency];
    if (version) return version;
  }
  throw new Error(`the workspace does not use ${dependency}`);
}

beforeAll(async () => {
  await packedOnce(tarballs);
  // Every @baton/* dependency, direct or not, comes from a tarball, never from a registry.
  const overrides: Record<string, string> = {};
  for (const name of packages) {
    const file = join(
      tarballs,
      `baton-${name}-${readJson(join(root, 'packages', name, 'package.json')).version}.tgz`,
    );
    overrides[`@baton/${name}`] = `file:${file}`;
  }
  mkdirSync(app);
  cpSync(join(root, 'tests/pack/app/src'), join(app, 'src'), { recursive: true });
  cpSync(join(root, 'tests/pack/app/tsconfig.json'), join(app, 'tsconfig.json'));
  writeFileSync(
    join(app, 'package.json'),
    JSON.stringify({
      name: 'baton-user-app',
      private: true,
      type: 'module',
      pnpm: { overrides, onlyBuiltDependencies: ['esbuild'] },
    }),
  );
  for (const name of packages) {
    await sh(app, 'pnpm', [...installLine(name).slice(1), '--prefer-offline']);
  }
  // The tools; the optional peers of @baton/aws/websocket and /local that its README names; and
  // the SDK clients a worker calls, which a Lambda runtime provides to the bundle.
  // Not esbuild: the CDK README's install line brings it, as the construct's bundling needs.
  const tools = ['typescript', '@types/node', '@types/react', '@types/ws', 'ws'];
  tools.push('@aws-sdk/client-apigatewaymanagementapi', '@aws-sdk/client-dynamodb-streams');
  tools.push('@aws-sdk/client-dynamodb', '@aws-sdk/client-sqs', '@aws-sdk/util-dynamodb');
  await sh(app, 'pnpm', [
    'add',
    '--prefer-offline',
    ...tools.map((tool) => `${tool}@${workspaceVersion(tool)}`),
  ]);
  // Type-checks the app under tsc --strict (skipLibCheck off: the installed types are checked
  // too) and compiles it to build/.
  await sh(app, join(app, 'node_modules/.bin/tsc'), ['-p', '.']);
}, 600_000);

afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('the packed packages, installed outside the workspace', () => {
  it('ship built JavaScript and types for every export, with no workspace specifiers', () => {
    for (const name of packages) {
      const dir = join(app, 'node_modules/@baton', name);
      const manifest = readJson(join(dir, 'package.json'));
      expect(JSON.stringify(manifest), name).not.toContain('workspace:');
      for (const [subpath, target] of Object.entries<{ types: string; default: string }>(
        manifest.exports,
      )) {
        expect(existsSync(join(dir, target.types)), `${name} ${subpath} types`).toBe(true);
        expect(existsSync(join(dir, target.default)), `${name} ${subpath} code`).toBe(true);
      }
      expect(manifest.license, name).toBe('MIT');
      expect(existsSync(join(dir, 'LICENSE')), `${name} LICENSE`).toBe(true);
      // Tests and their fixtures stay in the repository.
      const shipped = readdirSync(join(dir, 'dist'), { recursive: true }).map(String);
      expect(
        shipped.filter((file) => /\.test\.|fixtures/.test(file)),
        name,
      ).toEqual([]);
    }
  });

  it('type-check under tsc --strict, and run an app on the embedded backend with plain node', async () => {
    const output = await sh(app, process.execPath, ['build/main.js']);
    expect(JSON.parse(output.trim())).toEqual({
      left: 70,
      bob: 31,
      refused: 'INVALID_PAYLOAD',
      lastSeen: 100,
    });
  });

  it('synthesize a stack with the CDK construct, bundling every function from the installed packages', async () => {
    const bundles: string[] = JSON.parse(await sh(app, process.execPath, ['build/infra.js']));
    expect(bundles).toHaveLength(7);
    // The app's actor type, aliased in at bundling: in every bundle but the timer relay's.
    const withApp = bundles.filter((bundle) =>
      readFileSync(join(app, 'cdk.out', bundle, 'index.mjs'), 'utf8').includes('account'),
    );
    expect(withApp).toHaveLength(6);
  }, 180_000);

  it("bundle the worker's Lambda entry without ws, Streams or the WebSocket management API", async () => {
    await sh(app, join(app, 'node_modules/.bin/esbuild'), [
      'build/worker.js',
      '--bundle',
      '--platform=node',
      '--format=esm',
      '--target=node20',
      '--external:@aws-sdk/*',
      '--metafile=out/meta.json',
      '--outfile=out/worker.mjs',
    ]);
    const meta = readJson(join(app, 'out/meta.json'));
    // What the bundle carries: modules esbuild read but tree-shook away add no byte to it.
    const inputs = Object.values<{ inputs: Record<string, { bytesInOutput: number }> }>(
      meta.outputs,
    ).flatMap((output) =>
      Object.entries(output.inputs)
        .filter(([, { bytesInOutput }]) => bytesInOutput > 0)
        .map(([input]) => input),
    );
    expect(inputs.some((input) => input.includes('@baton/aws/dist/lambda/'))).toBe(true);
    for (const unwanted of ['/ws/', '@baton/server', '@baton/protocol', '@baton/embedded']) {
      expect(
        inputs.filter((input) => input.includes(unwanted)),
        unwanted,
      ).toEqual([]);
    }
    // What the bundle leaves to the Lambda runtime: the two SDK clients a worker calls.
    const external = new Set<string>();
    for (const output of Object.values<{ imports: { path: string; external?: boolean }[] }>(
      meta.outputs,
    )) {
      for (const { path, external: isExternal } of output.imports) {
        if (isExternal && path.startsWith('@aws-sdk/')) external.add(path);
      }
    }
    expect([...external].sort()).toEqual([
      '@aws-sdk/client-dynamodb',
      '@aws-sdk/client-sqs',
      '@aws-sdk/util-dynamodb',
    ]);
    // The bundle loads on its own, the SDK coming from the app's node_modules.
    const loaded = await sh(app, process.execPath, [
      '--input-type=module',
      '-e',
      "const { handler } = await import('./out/worker.mjs'); console.log(typeof handler);",
    ]);
    expect(loaded.trim()).toBe('function');
  });
});
