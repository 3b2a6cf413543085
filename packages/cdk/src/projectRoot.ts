import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';

const LOCK_FILES = ['pnpm-lock.yaml', 'package-lock.json', 'yarn.lock', 'bun.lockb'];

/** The nearest directory above `entry` with a lock file: where bundling resolves packages. */
export function findProjectRoot(entry: string): string {
  for (let dir = dirname(entry); ; dir = dirname(dir)) {
    if (LOCK_FILES.some((file) => existsSync(join(dir, file)))) return dir;
    if (dirname(dir) === dir) {
      throw new Error(
        `no lock file (${LOCK_FILES.join(', ')}) above ${entry}: set projectRoot to the directory that holds it`,
      );
    }
  }
}

/** The lock file in `projectRoot`. */
export function lockFile(projectRoot: string): string {
  const found = LOCK_FILES.map((file) => join(projectRoot, file)).find((path) => existsSync(path));
  if (!found) throw new Error(`no lock file in ${projectRoot}: BatonApp bundles from it`);
  return found;
}
