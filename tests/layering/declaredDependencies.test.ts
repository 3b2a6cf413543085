/**
 * Each package declares what its shipped code imports (dependencies or peer dependencies), so
 * that it runs where a strict installer (pnpm) gives it only those: `baton dev` from an installed
 * `@baton/cli` had needed AWS SDK clients that only the app had happened to add. Workspace
 * hoisting and npm's flat node_modules hide a missing declaration; this reads the imports.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '../..');
/** The module the CDK construct's bundling aliases to the app's entry (see packages/cdk). */
const ALIASES = new Set(['baton-app']);

/**
 * The packages a package's shipped code imports: its sources (built into dist/) and a bin/ it
 * ships, its tests and fixtures left out.
 */
function importsOf(dir: string): Map<string, { file: string; typeOnly: boolean }[]> {
  const found = new Map<string, { file: string; typeOnly: boolean }[]>();
  const { files = [] } = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
  for (const folder of ['src', ...(files.includes('bin') ? ['bin'] : [])]) {
    if (!existsSync(join(dir, folder))) continue;
    for (const file of readdirSync(join(dir, folder), { recursive: true }).map(String)) {
      if (!/\.(ts|tsx|js)$/.test(file) || /\.test(-d)?\.tsx?$|fixtures\//.test(file)) continue;
      const text = readFileSync(join(dir, folder, file), 'utf8')
        .replace(/\/\*[\s\S]*?\*\//g, '')
        .replace(/^\s*\/\/.*$/gm, '');
      const specifiers = text.matchAll(
        /^\s*(?:import|export)(\s+type\b)?[^'";]*?\bfrom\s+'([^']+)'|^\s*import\s+'([^']+)'|\bimport\(\s*'([^']+)'\s*\)/gm,
      );
      for (const [, type, from, bare, dynamic] of specifiers) {
        const specifier = (from ?? bare ?? dynamic)!;
        if (specifier.startsWith('.') || specifier.startsWith('node:')) continue;
        const parts = specifier.split('/');
        const name = specifier.startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0]!;
        const uses = found.get(name) ?? [];
        uses.push({ file: `${folder}/${file}`, typeOnly: type !== undefined });
        found.set(name, uses);
      }
    }
  }
  return found;
}

const packages = readdirSync(join(root, 'packages')).filter((name) =>
  existsSync(join(root, 'packages', name, 'package.json')),
);

describe("each package's manifest", () => {
  it.each(packages)('%s declares every package its code imports', (name) => {
    const dir = join(root, 'packages', name);
    const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
    const declared = new Set<string>([
      manifest.name,
      ...Object.keys(manifest.dependencies ?? {}),
      ...Object.keys(manifest.peerDependencies ?? {}),
    ]);
    const undeclared: string[] = [];
    for (const [imported, uses] of importsOf(dir)) {
      if (declared.has(imported) || ALIASES.has(imported)) continue;
      // Types alone may come from their @types package.
      if (uses.every((use) => use.typeOnly) && declared.has(`@types/${imported}`)) continue;
      undeclared.push(`${imported} (${uses.map((use) => use.file).join(', ')})`);
    }
    expect(undeclared).toEqual([]);
  });

  it("reads the imports of @baton/cli's sources and of create-baton's bin", () => {
    expect([...importsOf(join(root, 'packages/cli')).keys()]).toEqual(
      expect.arrayContaining([
        '@aws-sdk/client-dynamodb',
        '@aws-sdk/client-sqs',
        '@baton/aws',
        '@baton/embedded',
        '@baton/server',
        'esbuild',
      ]),
    );
    expect([...importsOf(join(root, 'packages/create-baton')).keys()]).toContain('@baton/cli');
  });
});
