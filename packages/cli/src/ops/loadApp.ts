import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { type BatonApp, BatonError, ErrorCode } from '@baton/core';
import { build } from 'esbuild';

/**
 * The app an entry module exports by default (`defineApp({ actors, … })`), bundled for Node so
 * that a TypeScript entry needs no loader: what `--app` gives the commands that need the app's
 * definitions (to validate a payload before sending it, or a stored state against its schema).
 *
 * @example
 * const app = await loadApp('src/app.ts');
 */
export function loadApp(entry: string): Promise<BatonApp> {
  const path = resolve(entry);
  let app = loaded.get(path);
  if (!app) {
    app = bundleAndImport(path);
    loaded.set(path, app);
    app.catch(() => loaded.delete(path));
  }
  return app;
}

/** The apps loaded in this process, by entry: a process that runs many commands bundles once. */
const loaded = new Map<string, Promise<BatonApp>>();

async function bundleAndImport(entry: string): Promise<BatonApp> {
  const dir = mkdtempSync(join(tmpdir(), 'baton-app-'));
  try {
    const result = await build({
      entryPoints: [entry],
      bundle: true,
      write: false,
      format: 'esm',
      platform: 'node',
      target: 'node20',
      logLevel: 'silent',
      external: ['bufferutil', 'utf-8-validate', '@aws-sdk/*'],
      banner: {
        js: "import { createRequire as __batonRequire } from 'node:module'; const require = __batonRequire(import.meta.url);",
      },
    });
    const file = join(dir, 'app.mjs');
    writeFileSync(file, result.outputFiles[0]!.text);
    const module = (await import(pathToFileURL(file).href)) as { default?: BatonApp };
    if (!module.default?.actors) {
      throw new BatonError(
        ErrorCode.INVALID_ARGUMENT,
        `${entry} has no default export made with defineApp({ actors }): --app takes the app's entry, the module baton dev and the CDK construct take`,
      );
    }
    return module.default;
  } catch (error) {
    if (error instanceof BatonError) throw error;
    throw new BatonError(
      ErrorCode.INVALID_ARGUMENT,
      `could not load the app ${entry}: ${(error as Error).message}`,
      { cause: error },
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
