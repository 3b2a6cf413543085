import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';

/**
 * Where resolved emulators live: `$BATON_EMULATOR_CACHE`, else
 * `<workspace root>/node_modules/.cache/baton-emulators` (the workspace root is the nearest
 * folder above `cwd` with a `pnpm-workspace.yaml`, else the nearest with a `package.json`).
 *
 * @example
 * defaultEmulatorCacheDir(); // '/home/me/baton/node_modules/.cache/baton-emulators'
 */
export function defaultEmulatorCacheDir(
  env: NodeJS.ProcessEnv = process.env,
  cwd: string = process.cwd(),
): string {
  if (env.BATON_EMULATOR_CACHE) return resolve(cwd, env.BATON_EMULATOR_CACHE);
  const root = findUp(cwd, 'pnpm-workspace.yaml') ?? findUp(cwd, 'package.json');
  return root === undefined
    ? join(tmpdir(), 'baton-emulators')
    : join(root, 'node_modules', '.cache', 'baton-emulators');
}

function findUp(from: string, file: string): string | undefined {
  let dir = resolve(from);
  for (;;) {
    if (existsSync(join(dir, file))) return dir;
    const parent = dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}
