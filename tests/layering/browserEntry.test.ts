/**
 * Core's layers, as a browser sees them: `@baton/client` and `@baton/react` import core's app
 * API and its shared helpers only, never the adapter ports, the engine or the ingress `Client`.
 * Checked twice: no source file of the browser packages imports those subpaths, and a browser
 * bundle of each entry carries no byte of them (esbuild's metafile).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..', '..');
const browserPackages = ['client', 'protocol', 'react'];
/** Core's layers a browser must not carry. */
const serverSide = /packages\/core\/src\/(adapter|engine|client)\//;

function sources(dir: string): string[] {
  return readdirSync(dir, { recursive: true })
    .map(String)
    .filter((file) => /\.tsx?$/.test(file) && !/\.test(-d)?\.tsx?$|fixtures/.test(file))
    .map((file) => join(dir, file));
}

/** The source files a browser bundle of `entry` carries (tree-shaken modules left out). */
async function carried(entry: string): Promise<string[]> {
  const { metafile } = await build({
    entryPoints: [join(root, entry)],
    bundle: true,
    write: false,
    metafile: true,
    platform: 'browser',
    format: 'esm',
    external: ['react', 'react-dom'],
    logLevel: 'silent',
  });
  return Object.values(metafile.outputs).flatMap((output) =>
    Object.entries(output.inputs)
      .filter(([, { bytesInOutput }]) => bytesInOutput > 0)
      .map(([input]) => input),
  );
}

describe("the browser client's layers", () => {
  it('imports neither @baton/core/adapter, /engine nor /client from a browser package', () => {
    const wrong: string[] = [];
    for (const name of browserPackages) {
      for (const file of sources(join(root, 'packages', name, 'src'))) {
        const text = readFileSync(file, 'utf8');
        for (const [specifier] of text.matchAll(/'@baton\/core\/(adapter|engine|client)'/g)) {
          wrong.push(`${relative(root, file)} imports ${specifier}`);
        }
      }
    }
    expect(wrong).toEqual([]);
  });

  it.each(['packages/client/src/index.ts', 'packages/react/src/index.ts'])(
    'bundles %s for a browser with nothing of the adapter, the engine or the ingress Client',
    async (entry) => {
      const inputs = await carried(entry);
      // The bundle is real: it carries the entry's package and core's errors.
      const own = entry.replace(/index\.ts$/, '');
      expect(inputs.filter((input) => input.includes(own)).length).toBeGreaterThan(1);
      expect(inputs.some((input) => input.includes('packages/core/src/errors.ts'))).toBe(true);
      expect(inputs.filter((input) => serverSide.test(input))).toEqual([]);
    },
  );
});
