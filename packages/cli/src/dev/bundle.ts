import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build, type Metafile } from 'esbuild';
import { DEFAULT_EXPORT } from './appEntry.ts';

/** A bundle and the source files it was made of (absolute paths), to watch. */
export interface Bundle {
  readonly code: string;
  readonly inputs: ReadonlySet<string>;
}

/** The app's bundle, and what in the app's own files will be undefined when it runs. */
export interface AppBundle extends Bundle {
  /**
   * esbuild's `import-is-undefined` warnings in the app's files, one line each at its file and
   * line (`z.objec` of `import * as z`): the cause of the "is not a function" the app then
   * throws, told seconds before the type check says it.
   */
  readonly undefinedImports: readonly string[];
}

/** This package's own module `name` (`.ts` in the repository, `.js` once built). */
export function ownModule(...path: string[]): string {
  const ts = join(import.meta.dirname, ...path);
  return existsSync(`${ts}.ts`) ? `${ts}.ts` : `${ts}.js`;
}

/**
 * The name of the app process's virtual entry (esbuild's `stdin`), which imports the app's entry
 * beside `child/runApp`: it is no file of the app's, so it is neither watched (it would name the
 * working directory as a folder the app is built from) nor named in a build error.
 */
const VIRTUAL_ENTRY = 'baton-dev-app.js';

/** The module of each backend the app process can run on, and its opening function. */
const BACKENDS = {
  embedded: ['embeddedBackend', 'embeddedBackend'],
  'local-aws': ['awsBackend', 'awsBackend'],
} as const;

/**
 * The app process as one ES module for Node: the app's entry together with `child/runApp` and
 * the one backend it runs on, so that one copy of each package serves both, TypeScript needs no
 * loader, a change shows as a new bundle, and an embedded app carries nothing of AWS (the AWS
 * SDK clients need not be installed).
 */
export async function bundleApp(entry: string, backend: keyof typeof BACKENDS): Promise<AppBundle> {
  const [module, open] = BACKENDS[backend];
  const result = await build({
    stdin: {
      contents: [
        // First: an error the entry throws while it loads is told as a failed start.
        `import { entryLoaded } from ${JSON.stringify(ownModule('child', 'startupGuard'))};`,
        `import app from ${JSON.stringify(entry)};`,
        `import { runApp } from ${JSON.stringify(ownModule('child', 'runApp'))};`,
        `import { ${open} } from ${JSON.stringify(ownModule('child', module))};`,
        'entryLoaded();',
        `await runApp(app, ${open});`,
      ].join('\n'),
      resolveDir: process.cwd(),
      sourcefile: VIRTUAL_ENTRY,
      loader: 'js',
    },
    bundle: true,
    write: false,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    sourcemap: 'inline',
    // The bundle runs from a temporary folder: stacks name the app's files where they are.
    sourceRoot: `${pathToFileURL(process.cwd()).href}/`,
    metafile: true,
    logLevel: 'silent',
    // ws's optional native helpers; it works without them.
    external: ['bufferutil', 'utf-8-validate'],
    // CommonJS dependencies (ws) require Node's built-ins.
    banner: {
      js: "import { createRequire as __batonRequire } from 'node:module'; const require = __batonRequire(import.meta.url);",
    },
  });
  const undefinedImports = result.warnings.flatMap(({ id, location, text }) =>
    id === 'import-is-undefined' && location && !location.file.includes('node_modules')
      ? [`${location.file}:${location.line}:${location.column + 1}: ${text}`]
      : [],
  );
  return { code: result.outputFiles[0]!.text, inputs: inputsOf(result.metafile), undefinedImports };
}

/** A browser page (React's automatic JSX) as one ES module. */
export async function bundlePage(entry: string): Promise<Bundle> {
  const result = await build({
    entryPoints: [entry],
    bundle: true,
    write: false,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    jsx: 'automatic',
    sourcemap: 'inline',
    metafile: true,
    logLevel: 'silent',
    define: { 'process.env.NODE_ENV': '"development"' },
  });
  return { code: result.outputFiles[0]!.text, inputs: inputsOf(result.metafile) };
}

function inputsOf(metafile: Metafile): Set<string> {
  return new Set(
    Object.keys(metafile.inputs)
      .filter(
        (input) =>
          !input.includes('node_modules') && !input.startsWith('<') && input !== VIRTUAL_ENTRY,
      )
      .map((input) => resolve(process.cwd(), input)),
  );
}

/** esbuild's error for an entry with no default export. */
const NO_DEFAULT = /^No matching export in ".*" for import "default"$/;

/**
 * An esbuild failure as a few readable lines, each at the file and line it is about; one in the
 * virtual entry (the entry's import: no default export, a missing entry file) without it.
 *
 * @example
 * buildErrorText(error);
 * // 'No matching export in "src/app.ts" for import "default": the entry must end with …'
 */
export function buildErrorText(error: unknown): string {
  const errors = (
    error as { errors?: { text: string; location?: { file: string; line: number } }[] }
  ).errors;
  if (!errors?.length) return String(error);
  return errors
    .map((e) => {
      const text = NO_DEFAULT.test(e.text) ? `${e.text}: ${DEFAULT_EXPORT}` : e.text;
      return e.location && e.location.file !== VIRTUAL_ENTRY
        ? `${e.location.file}:${e.location.line}: ${text}`
        : text;
    })
    .join('\n');
}
