import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
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

  it("names pnpm's built-in commands only where it means them, never for a package's script", () => {
    // pnpm runs these itself, whatever script a package has of that name (`pnpm deploy` copies a
    // workspace package; `pnpm run deploy` runs its deploy script).
    const builtIns = new Set(
      'add audit bin config create deploy dlx env exec fetch import init install licenses link list outdated pack patch prune publish rebuild remove root server setup store unlink update why'.split(
        ' ',
      ),
    );
    const manifests = new Map<string, { dir: string; scripts: Record<string, string> }>();
    for (const dir of [
      '.',
      'infra',
      ...['packages', 'examples'].flatMap((group) =>
        readdirSync(join(root, group)).map((name) => join(group, name)),
      ),
    ]) {
      const file = join(root, dir, 'package.json');
      if (!existsSync(file)) continue;
      const { name, scripts = {} } = JSON.parse(readFileSync(file, 'utf8'));
      manifests.set(name, { dir, scripts });
    }
    const docs = [...manifests.values()]
      .map(({ dir }) => join(dir, 'README.md'))
      .concat(readdirSync(join(root, 'docs')).map((file) => join('docs', file)))
      .filter((file) => existsSync(join(root, file)));
    const wrong: string[] = [];
    for (const doc of docs) {
      const text = readFileSync(join(root, doc), 'utf8');
      const here = [...manifests.values()].find(({ dir }) => join(dir, 'README.md') === doc);
      for (const [, filter, command] of text.matchAll(
        /\bpnpm(?: --filter (\S+))? ([a-z][\w-]*)/g,
      )) {
        const target = filter ? manifests.get(filter) : here;
        if (builtIns.has(command!) && target?.scripts[command!] !== undefined) {
          wrong.push(`${doc}: pnpm ${filter ? `--filter ${filter} ` : ''}${command}`);
        }
      }
    }
    expect(wrong).toEqual([]);
  });
});
