import type { Reporter, TestModule } from 'vitest/node';

/** Ends the run's output with one plain line, `tests: N passed, N failed`, that any CI can read. */
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
    // Printed at exit, so it stands after vitest's own summary as the run's last line.
    process.once('exit', () => console.log(`tests: ${passed} passed, ${failed} failed${tail}`));
  }
}
