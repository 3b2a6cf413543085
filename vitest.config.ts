import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['packages/*/src/**/*.test.ts', 'examples/*/src/**/*.test.ts', 'tests/**/*.test.ts'],
    // The type tests (`*.test-d.ts`) are checked by `pnpm run check`'s tsc, which `pnpm test` runs
    // first and which fails on any of their assertions: a second tsc here only cost a minute.
    // Two files at a time at least: vitest's default, one fewer than the cores, ran a 2-core host's
    // files one by one, though most of them wait on the emulators, Chromium or a child process
    // (480 s against 714 s for the whole run there).
    maxWorkers: Math.max(2, availableParallelism() - 1),
    testTimeout: 60_000,
    // A beforeAll that starts a dev server or a browser waits up to 30 s for it; vitest's 10-s
    // default gave up first on a loaded host and left the started process running.
    hookTimeout: 60_000,
    // A poll waits on work in other processes (a dev server, Chromium, the emulators'
    // JVMs); on a loaded 2-core CI host a turn and its push can take past vitest's 1-s default.
    expect: { poll: { timeout: 10_000 } },
    // The embedded store keeps what a commit passes in: frozen here, code that changes a
    // committed object afterwards fails its test.
    env: { BATON_FREEZE_COMMITS: '1' },
    // DynamoDB Local + ElasticMQ, started once per run (needs Java 17+; Maven on the first run).
    globalSetup: ['./tests/setup/emulators.ts', './tests/setup/packedFolder.ts'],
    reporters: ['default', './tests/summary-reporter.ts'],
  },
});
