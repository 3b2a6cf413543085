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

  it('has a timers example that type-checks against the API as written', async () => {
    const readme = readFileSync(join(root, 'README.md'), 'utf8');
    const example = [...readme.matchAll(/```ts\n([\s\S]*?)```/g)]
      .map((m) => m[1]!)
      .find((block) => block.includes('ctx.schedule('));
    expect(example).toContain('ctx.cancel(');
    const dir = mkdtempSync(join(root, 'examples', 'bank', '.readme-'));
    try {
      const file = join(dir, 'timers.ts');
      const imports = "import { actor } from '@baton/core';\nimport * as z from 'zod';\n";
      writeFileSync(file, `${imports}${example!}\nexport { Order };\n`);
      const tsc = join(root, 'node_modules', '.bin', 'tsc');
      const options = ['--noEmit', '--strict', '--skipLibCheck', '--allowImportingTsExtensions'];
      const module = [
        '--module',
        'nodenext',
        '--moduleResolution',
        'nodenext',
        '--target',
        'es2022',
      ];
      await promisify(execFile)(tsc, [...options, ...module, '--types', 'node', file], {
        cwd: join(root, 'examples', 'bank'),
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);

  it('has a workflows example that type-checks against the API as written', async () => {
    const readme = readFileSync(join(root, 'README.md'), 'utf8');
    const example = [...readme.matchAll(/```ts\n([\s\S]*?)```/g)]
      .map((m) => m[1]!)
      .find((block) => block.includes('workflow({'));
    expect(example).toContain('ctx.step(');
    // What the example leaves to the reader: the payment service, the stock actor, a client.
    const context = [
      "import { actor, workflow } from '@baton/core';",
      "import type { Client } from '@baton/core/client';",
      "import * as z from 'zod';",
      'const DAY = 24 * 60 * 60 * 1000;',
      'declare const client: Client;',
      'declare const payments: {',
      '  charge(amount: number, key: string): Promise<{ id: string }>;',
      '  refund(id: string, key: string): Promise<void>;',
      '};',
      'const Stock = actor({',
      "  name: 'stock',",
      '  state: z.object({ held: z.number() }),',
      '  initial: () => ({ held: 0 }),',
      '  handlers: {',
      '    reserve: { payload: z.object({ qty: z.number() }), handle: (ctx, { qty }) => { ctx.state.held += qty; } },',
      '    release: { payload: z.object({}), handle: (ctx) => { ctx.state.held = 0; } },',
      '  },',
      '});',
      '',
    ].join('\n');
    const dir = mkdtempSync(join(root, 'examples', 'bank', '.readme-'));
    try {
      const file = join(dir, 'workflows.ts');
      writeFileSync(file, `${context}${example!}\nexport { Fulfil };\n`);
      const tsc = join(root, 'node_modules', '.bin', 'tsc');
      const options = ['--noEmit', '--strict', '--skipLibCheck', '--allowImportingTsExtensions'];
      const module = ['--module', 'nodenext', '--moduleResolution', 'nodenext'];
      await promisify(execFile)(tsc, [...options, ...module, '--target', 'es2022', file], {
        cwd: join(root, 'examples', 'bank'),
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);

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
