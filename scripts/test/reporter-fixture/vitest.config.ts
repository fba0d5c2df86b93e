// Runs the summary reporter over the fixture alone (scripts/src/gates/ci-gates.test.ts).
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    root: import.meta.dirname,
    include: ['*.fixture.ts'],
    reporters: [new URL('../../src/summary-reporter.ts', import.meta.url).pathname],
  },
});
