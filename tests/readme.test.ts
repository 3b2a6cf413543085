import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..');

describe('the README', () => {
  it('has an example that runs as written and prints what its comment says', async () => {
    const readme = readFileSync(join(root, 'README.md'), 'utf8');
    const example = /```ts\n([\s\S]*?)```/.exec(readme)?.[1];
    expect(example).toContain('startEmbedded');
    // Inside the workspace, so that its imports resolve like a user's would.
    const dir = mkdtempSync(join(root, 'examples', 'bank', '.readme-'));
    try {
      const file = join(dir, 'example.ts');
      writeFileSync(file, example!);
      const { stdout } = await promisify(execFile)(
        join(root, 'node_modules', '.bin', 'tsx'),
        [file],
        { cwd: join(root, 'examples', 'bank') },
      );
      expect(stdout.trim()).toBe('31');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
