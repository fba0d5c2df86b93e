// A Vitest reporter that ends the run with one plain line, `N passed, N failed` (and `, N skipped`
// when any were), which CI reads to tell a run that tested something from one that did not.
import type { Reporter, TestModule } from 'vitest/node';

export default class SummaryReporter implements Reporter {
  onTestRunEnd(testModules: readonly TestModule[], unhandledErrors: readonly unknown[]): void {
    const count = { passed: 0, failed: 0, skipped: 0 };
    for (const module of testModules) {
      let failedTests = 0;
      for (const test of module.children.allTests()) {
        const state = test.result().state;
        if (state === 'passed') count.passed += 1;
        else if (state === 'skipped') count.skipped += 1;
        else failedTests += 1;
      }
      count.failed += failedTests;
      // A file that failed to load, or whose hooks failed (a beforeAll, an afterAll), failed even
      // when none of its tests did.
      if (module.state() === 'failed' && failedTests === 0) count.failed += 1;
    }
    count.failed += unhandledErrors.length;
    const skipped = count.skipped > 0 ? `, ${count.skipped} skipped` : '';
    process.stdout.write(`\n${count.passed} passed, ${count.failed} failed${skipped}\n`);
  }
}
