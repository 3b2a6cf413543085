import { execFileSync } from 'node:child_process';
import { resolve } from 'node:path';

/** The repository's root. */
export const root = resolve(import.meta.dirname, '..');

/** The repository's Markdown files, as paths from its root. */
export function markdownFiles(): string[] {
  return execFileSync('git', ['ls-files', '*.md'], { cwd: root, encoding: 'utf8' })
    .split('\n')
    .filter(Boolean);
}
