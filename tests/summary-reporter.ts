import type { Reporter, TestModule } from 'vitest/node';

/** How many of the slowest test files the summary names. */
const SLOWEST = 12;

/**
 * Ends the run's output with the slowest test files, a line each, then one plain line,
 * `tests: N passed, N failed`, that any CI can read. The files run one after another on a
 * 2-core host, so the slowest are where the suite's time goes.
 */
export default class SummaryReporter implements Reporter {
  onTestRunEnd(modules: ReadonlyArray<TestModule>): void {
    let passed = 0;
    let failed = 0;
    let skipped = 0;
    for (const module of modules) {
      for (const test of module.children.allTests()) {
        const state = test.result().state;
        if (state === 'passed') passed++;
        else if (state === 'failed') failed++;
        else skipped++;
      }
    }
    // A file that failed before its tests ran (an error at import or in a hook) counts too.
    const broken = modules.filter((module) => module.errors().length > 0).length;
    const tail =
      (skipped > 0 ? `, ${skipped} skipped` : '') +
      (broken > 0 ? `, ${broken} file${broken === 1 ? '' : 's'} with errors` : '');
    const slowest = slowestFiles(modules, SLOWEST);
    // Printed at exit, so it stands after vitest's own summary as the run's last lines.
    process.once('exit', () => {
      console.log(slowest);
      console.log(`tests: ${passed} passed, ${failed} failed${tail}`);
    });
  }
}

/** The `count` slowest files, by the time to import them and run their tests and hooks. */
export function slowestFiles(modules: ReadonlyArray<TestModule>, count: number): string {
  const timed = modules
    .map((module) => {
      const { collectDuration, duration } = module.diagnostic();
      return { file: module.moduleId, ms: collectDuration + duration };
    })
    .sort((a, b) => b.ms - a.ms);
  const total = timed.reduce((sum, { ms }) => sum + ms, 0);
  const root = `${process.cwd()}/`;
  const lines = timed
    .slice(0, count)
    .map(
      ({ file, ms }) =>
        `  ${(ms / 1000).toFixed(1).padStart(6)} s  ${((100 * ms) / Math.max(total, 1)).toFixed(1).padStart(4)}%  ${file.startsWith(root) ? file.slice(root.length) : file}`,
    );
  return [
    `slowest test files (of ${modules.length}, ${(total / 1000).toFixed(0)} s in all):`,
    ...lines,
  ].join('\n');
}
