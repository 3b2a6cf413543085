/**
 * Mutation testing of the turn engine and the embedded store and queue: `pnpm mutation` (not in
 * CI). Results: the clear-text summary, and `reports/mutation/index.html`.
 *
 * One file, two readers. Stryker reads its options from it, and Stryker's vitest runner loads this
 * same file as the vitest config (`vitest.configFile`), which reads only `test`. So the mutants
 * run against the fast tests alone — no emulators (the root config's global setup), no browser,
 * no type checks — with the simulations at 100 schedules and 12 workflow seeds (a full run takes
 * about 2.5 hours on 2 cores; every mutant the simulation covers runs it).
 *
 * Stryker runs in a copy of the workspace, whose `node_modules` are links to the original: the
 * `@baton/*` imports are pointed at the copy's sources, or the tests would run unmutated code.
 *
 * Incremental: a run reuses the results of mutants and tests that did not change since the last
 * one (`reports/mutation/incremental.json`). It cannot see a change in a test helper or fixture;
 * `pnpm mutation --force` runs everything again.
 */
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('.', import.meta.url));

export default {
  // Stryker
  testRunner: 'vitest',
  // By path: pnpm keeps the runner out of Stryker's own reach, where its default glob looks.
  plugins: [createRequire(import.meta.url).resolve('@stryker-mutator/vitest-runner')],
  vitest: { configFile: 'stryker.config.mjs', related: true },
  mutate: [
    'packages/core/src/engine/**/*.ts',
    '!packages/core/src/engine/**/*.test.ts',
    'packages/core/src/schemaIssues.ts',
    'packages/embedded/src/EmbeddedStore.ts',
    'packages/embedded/src/commitEntry.ts',
    'packages/embedded/src/StoreListeners.ts',
    'packages/embedded/src/storeOutbox.ts',
    'packages/embedded/src/storeReads.ts',
    'packages/embedded/src/StoreTables.ts',
    'packages/embedded/src/EmbeddedQueue.ts',
    'packages/embedded/src/QueueState.ts',
    'packages/embedded/src/pickMessages.ts',
    'packages/embedded/src/queueMessageChecks.ts',
  ],
  coverageAnalysis: 'perTest',
  incremental: true,
  incrementalFile: 'reports/mutation/incremental.json',
  reporters: ['clear-text', 'progress', 'html'],
  htmlReporter: { fileName: 'reports/mutation/index.html' },
  clearTextReporter: { reportTests: false },
  tempDirName: '.stryker-tmp',
  // `test` below is vitest's, not Stryker's.
  warnings: { unknownOptions: false },

  // vitest, as loaded by Stryker's runner
  test: {
    include: [
      'packages/core/src/**/*.test.ts',
      'packages/embedded/src/**/*.test.ts',
      // Not mutated by default; here so that `--mutate` of the local server's and the wire
      // protocol's files finds the tests that cover them.
      'packages/server/src/**/*.test.ts',
      'packages/protocol/src/**/*.test.ts',
      'tests/engine/**/*.test.ts',
      'tests/workflow/**/*.test.ts',
      'tests/conformance/embedded.test.ts',
      'tests/simulation/**/*.test.ts',
    ],
    env: {
      BATON_FREEZE_COMMITS: '1',
      BATON_SIM_RUNS: '100',
      BATON_SIM_WORKFLOW_RUNS: '12',
      BATON_FAN_IN_SENDERS: '2000',
    },
    testTimeout: 60_000,
    alias: [
      { find: /^@baton\/([\w-]+)$/, replacement: `${root}packages/$1/src/index.ts` },
      { find: /^@baton\/([\w-]+)\/([\w-]+)$/, replacement: `${root}packages/$1/src/$2/index.ts` },
    ],
  },
};
