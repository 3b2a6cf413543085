import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildErrorText, bundleApp } from './bundle.ts';

const entry = join(import.meta.dirname, '../../../../tests/dev/fixtures/counter/src/app.ts');
const fromAws = (inputs: ReadonlySet<string>) =>
  [...inputs].filter((input) => /packages\/aws\/|child\/awsBackend/.test(input));

describe("the app process's bundle", () => {
  it('carries nothing of the AWS backend when the app runs embedded', async () => {
    const { inputs } = await bundleApp(entry, 'embedded');
    expect([...inputs].some((input) => input.endsWith('child/embeddedBackend.ts'))).toBe(true);
    expect(fromAws(inputs)).toEqual([]);
  });

  it('carries the AWS backend when the app runs on local-aws', async () => {
    const { inputs } = await bundleApp(entry, 'local-aws');
    expect(fromAws(inputs).length).toBeGreaterThan(0);
  });

  it('names as its inputs files of the app and of Baton only, not its own virtual entry', async () => {
    const { inputs } = await bundleApp(entry, 'embedded');
    // The virtual entry, resolved from the working directory, would have it watched.
    expect([...inputs].filter((input) => !existsSync(input))).toEqual([]);
    expect([...inputs].map((input) => dirname(input))).not.toContain(process.cwd());
  });

  it("says a build error of the entry's import without the virtual entry's name", async () => {
    // Beside the tests' copies of apps (inside the repository, so that @baton/core resolves).
    const dir = mkdtempSync(join(import.meta.dirname, '../../../../tests/dev/.work-'));
    try {
      const named = join(dir, 'app.ts');
      writeFileSync(
        named,
        "import { defineApp } from '@baton/core';\nexport const app = defineApp({ actors: [] });\n",
      );
      const error = await bundleApp(named, 'embedded').catch((e: unknown) => e);
      expect(buildErrorText(error)).toMatch(
        /^No matching export in "[^"]*app\.ts" for import "default": the entry must end with export default defineApp/,
      );
      const missing = await bundleApp(join(dir, 'nope.ts'), 'embedded').catch((e: unknown) => e);
      expect(buildErrorText(missing)).toMatch(/^Could not resolve "[^"]*nope\.ts"$/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("names what in the app's own files will be undefined, at its file and line, and nothing of its packages", async () => {
    const dir = mkdtempSync(join(import.meta.dirname, '../../../../tests/dev/.work-'));
    try {
      writeFileSync(join(dir, 'helper.ts'), 'export const one = 1;\n');
      writeFileSync(
        join(dir, 'app.ts'),
        [
          "import { defineApp } from '@baton/core';",
          "import * as helper from './helper.ts';",
          'export const two = helper.onee + 1;',
          'export default defineApp({ actors: [] });',
        ].join('\n'),
      );
      const { undefinedImports } = await bundleApp(join(dir, 'app.ts'), 'embedded');
      expect(undefinedImports).toEqual([
        expect.stringMatching(
          /app\.ts:3:27: Import "onee" will always be undefined because there is no matching export in "[^"]*helper\.ts"$/,
        ),
      ]);
      expect((await bundleApp(entry, 'embedded')).undefinedImports).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
