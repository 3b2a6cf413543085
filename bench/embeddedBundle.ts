/**
 * Row 6's workload (`embedded-round.ts`) bundled the way a deployment bundles the engine:
 * esbuild, ESM, for Node. The bench itself runs through tsx, whose transform keeps every
 * function's name (`keepNames`, a `__name()` call around each closure): about a tenth of an
 * embedded turn's CPU that neither a Lambda bundle nor a user's tests (which load Baton's built
 * JavaScript from `node_modules`) pay.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { forkPart, type Part } from './parts.ts';

const root = new URL('../', import.meta.url).pathname;
const outDir = join(root, 'node_modules/.cache/baton-bench');

/** Bundles `entry` (TypeScript, its imports resolved from the repository's root) to `name`. */
export async function bundleWorkload(entry: string, name: string): Promise<string> {
  mkdirSync(outDir, { recursive: true });
  const outfile = join(outDir, name);
  await build({
    stdin: { contents: entry, resolveDir: root, loader: 'ts', sourcefile: `${name}.ts` },
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    outfile,
    logLevel: 'warning',
  });
  return outfile;
}

/**
 * `embeddedRound`, from its bundle, in a process of its own: a fresh V8 that has compiled no
 * other step's code, so row 6 reads the same whichever rows ran before it.
 */
export async function embeddedRoundPart(): Promise<
  Part<{ embeddedRound: typeof import('./embedded-round.ts').embeddedRound }>
> {
  const file = await bundleWorkload(
    [
      "import { serve } from './bench/parts.ts';",
      "import { embeddedRound } from './bench/embedded-round.ts';",
      'serve({ embeddedRound });',
    ].join('\n'),
    'embedded-round.mjs',
  );
  return forkPart(pathToFileURL(file));
}
