import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['packages/*/src/**/*.test.ts', 'examples/*/src/**/*.test.ts', 'tests/**/*.test.ts'],
    typecheck: { enabled: true, include: ['packages/*/src/**/*.test-d.ts'] },
    testTimeout: 60_000,
    reporters: ['default', './tests/summary-reporter.ts'],
  },
});
