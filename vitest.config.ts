import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['*/src/**/*.test.ts', '*/test/**/*.test.ts'],
    reporters: ['default', './scripts/src/summary-reporter.ts'],
    // One throwaway PostgreSQL cluster for the run (the store tests run on SQLite and PostgreSQL).
    globalSetup: ['./devtools/src/postgres-global-setup.ts'],
    // Tests bind real loopback servers and touch shared state (nock); keep files isolated.
    pool: 'forks',
    testTimeout: 20_000,
    hookTimeout: 30_000,
  },
});
