/**
 * Bench row 7a, guarded: Baton's own share of the worker Lambda bundle (the bank's actors behind
 * `workerHandler` on a `DynamoTurnStore` and an `SqsTurnQueue`, bundled with esbuild as a
 * deployment bundles it: minified, ESM, the AWS SDK external) stays within DESIGN's 100 KB,
 * counted as `pnpm bench` counts it (the bytes of the workspace's packages).
 */
import { describe, expect, it } from 'vitest';
import { BATON_BUDGET_BYTES, batonShareOfWorker } from '../../bench/worker-bundle.ts';

describe('the worker Lambda bundle (bench row 7a)', () => {
  it("keeps Baton's own share within DESIGN's 100 KB", async () => {
    const bytes = await batonShareOfWorker();
    expect(bytes, `Baton's share is ${(bytes / 1024).toFixed(1)} KB`).toBeLessThanOrEqual(
      BATON_BUDGET_BYTES,
    );
  });
});
