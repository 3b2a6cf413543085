/**
 * Bench row 7a, guarded: Baton's own share of the worker Lambda bundle (the bank's actors behind
 * `workerHandler` on a `DynamoTurnStore` and an `SqsTurnQueue`, bundled with esbuild as a
 * deployment bundles it: minified, ESM, the AWS SDK external) stays within DESIGN's 100 KB,
 * counted as `pnpm bench` counts it (the bytes of the workspace's packages).
 */
import { describe, expect, it } from 'vitest';
import {
  BATON_BUDGET_BYTES,
  batonShareOfWorker,
  batonShareRow,
  deployedWorker,
} from '../../bench/worker-bundle.ts';

describe('the worker Lambda bundle (bench row 7a)', () => {
  it("keeps Baton's own share within DESIGN's 100 KB", async () => {
    const bytes = await batonShareOfWorker();
    expect(bytes, `Baton's share is ${(bytes / 1024).toFixed(1)} KB`).toBeLessThanOrEqual(
      BATON_BUDGET_BYTES,
    );
  });

  it('prints the bytes to spare under both readings of 100 KB, 102,400 and 100,000 bytes', () => {
    const row = batonShareRow('7a', 102_371);
    expect(row.candidate).toContain('102,371 bytes');
    expect(row.candidate).toContain('29 bytes to spare under 102,400');
    expect(row.candidate).toContain('2,371 bytes over 100,000');
    expect(batonShareRow('7a', 99_000).candidate).toContain('1,000 bytes to spare under 100,000');
  });

  it('holds no workflow code in the worker BatonApp deploys for an app without workflows (row 7g)', async () => {
    const { inputs } = await deployedWorker();
    expect(inputs.some((input) => input.endsWith('packages/core/src/defineApp.ts'))).toBe(true);
    expect(inputs.filter((input) => input.includes('packages/core/src/workflow/'))).toEqual([
      'packages/core/src/workflow/builtInQueries.ts',
    ]);
  });
});
