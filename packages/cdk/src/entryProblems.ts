import { statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, isAbsolute, join, resolve } from 'node:path';

/** What an app's entry must be, as `baton dev` says it too. */
export const ENTRY_MUST =
  'the entry must end with export default defineApp({ actors, queries }) (defineApp from @baton/core)';

/** What this check uses of esbuild's API (the project's own esbuild, as the bundling's). */
interface Esbuild {
  buildSync(options: Record<string, unknown>): {
    metafile?: { outputs: Record<string, { exports?: string[] }> };
  };
}

interface EsbuildFailure {
  readonly errors?: readonly {
    text: string;
    location?: { file: string; line: number; column: number } | null;
  }[];
}

/**
 * What is wrong with `entry`, BatonApp's app module, said at construction rather than as
 * esbuild's error while the functions are bundled (inside a long `cdk synth` failure): a path
 * that names no file; with `readSource` (when this synth bundles the functions), a module that
 * does not parse, or that has no default export (`export const app = defineApp(…)`, say). Its
 * source is read by the project's esbuild, as the bundling reads it, and never run; without an
 * esbuild where the entry resolves its packages, that part is left to the bundling.
 *
 * @example
 * entryProblems('src/ap.ts', { readSource: true });
 * // ['entry "src/ap.ts" is no file: /app/src/ap.ts does not exist (a relative entry is read from
 * //   the folder cdk runs in, /app); it must be the path of the app's module, …']
 */
export function entryProblems(entry: string, { readSource }: { readSource: boolean }): string[] {
  const path = resolve(entry);
  const from = isAbsolute(entry)
    ? ''
    : ` (a relative entry is read from the folder cdk runs in, ${process.cwd()})`;
  const must = `it must be the path of the app's module, whose default export is defineApp({ actors, queries }) from @baton/core (e.g. src/app.ts)`;
  let file: boolean;
  try {
    file = statSync(path).isFile();
  } catch {
    return [`entry ${JSON.stringify(entry)} is no file: ${path} does not exist${from}; ${must}`];
  }
  if (!file)
    return [`entry ${JSON.stringify(entry)} is a folder (${path}), not a file${from}; ${must}`];
  if (!readSource) return [];
  const read = readExports(path);
  if (read === undefined) return [];
  if ('error' in read) return [`entry ${JSON.stringify(entry)} does not parse: ${read.error}`];
  if (read.exports.includes('default')) return [];
  const names = read.exports.length > 0 ? ` (it exports ${read.exports.join(', ')})` : '';
  return [`entry ${JSON.stringify(entry)} has no default export${names}: ${ENTRY_MUST}`];
}

/**
 * The names the module at `path` exports, from its source alone (esbuild without bundling: a
 * CommonJS module's `module.exports` is its default), or the first error that keeps esbuild from
 * reading it; `undefined` when no esbuild resolves from it, or esbuild tells nothing.
 */
function readExports(path: string): { exports: readonly string[] } | { error: string } | undefined {
  let esbuild: Esbuild;
  try {
    esbuild = createRequire(path)('esbuild') as Esbuild;
  } catch {
    return undefined;
  }
  try {
    const { metafile } = esbuild.buildSync({
      entryPoints: [path],
      bundle: false,
      write: false,
      format: 'esm',
      platform: 'node',
      metafile: true,
      // Nothing is written (write: false); an output path apart from the input's is still needed.
      outdir: join(dirname(path), '.baton-entry-check'),
      logLevel: 'silent',
    });
    const outputs = Object.values(metafile?.outputs ?? {});
    const exports = outputs.find((output) => output.exports !== undefined)?.exports;
    return exports === undefined ? undefined : { exports };
  } catch (error) {
    const first = (error as EsbuildFailure).errors?.[0];
    if (!first) return undefined;
    const at = first.location
      ? `${first.location.file}:${first.location.line}:${first.location.column}: `
      : '';
    return { error: `${at}${first.text}` };
  }
}
