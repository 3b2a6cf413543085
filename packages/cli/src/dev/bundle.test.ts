import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { bundleApp } from './bundle.ts';

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
});
