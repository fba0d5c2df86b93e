import { configDefaults, defineConfig } from 'vitest/config';

// The test files that take a PostgreSQL database (inject('postgresUrl')): the webhook API's (its
// store tests run on SQLite and PostgreSQL) and start:pg's. A rule by folder, not a list of files,
// so the webhook API's files can move within it; a file that needs PostgreSQL outside this rule
// fails saying so (freshDatabase).
const postgresTests = [
  'webhook-api/**/*.test.ts',
  'scripts/test/start-pg.test.ts',
  'mcp-server/test/replicas.test.ts',
  'mcp-server/test/registration-rows.test.ts',
  'scripts/test/haproxy.test.ts',
  'scripts/test/haproxy-stream-limits.test.ts',
  'mcp-server/src/questions/postgres-spent-states.test.ts',
];
// The gateway registry's tests of its store's behaviour: run in both projects, on the in-memory
// store in one and on PostgreSQL in the other (registry-harness.ts picks by inject('postgresUrl')).
const registryStoreTests = ['tool-registry', 'registry-server', 'publishers', 'callback-addresses', 'name-ownership'].map(
  (name) => `mcp-server/src/registry/${name}.test.ts`,
);

// The SDK and proto packages export dist/ to their consumers and, under this condition, their
// TypeScript sources to the repository's own tests (tsconfig.json and .npmrc set it too).
const sourceConditions = ['@platform/source'];

export default defineConfig({
  resolve: { conditions: sourceConditions },
  ssr: { resolve: { conditions: sourceConditions, externalConditions: sourceConditions } },
  test: {
    reporters: ['default', './scripts/src/summary-reporter.ts'],
    // Tests bind real loopback servers and touch shared state (nock); keep files isolated.
    pool: 'forks',
    testTimeout: 20_000,
    hookTimeout: 30_000,
    // Vitest runs a project's global setup only when some of its files run: the throwaway
    // PostgreSQL cluster starts for the files that need it, not for `vitest run shared/...`.
    projects: [
      {
        extends: true,
        test: {
          name: 'postgres',
          include: [...postgresTests, ...registryStoreTests],
          globalSetup: ['./devtools/src/postgres-global-setup.ts'],
        },
      },
      {
        extends: true,
        test: {
          name: 'no-postgres',
          // Not examples/tool-service/test: the template's tests run in a project of their own, on the
          // packed SDK (scripts/test/tool-sdk-package.test.ts).
          include: ['*/src/**/*.test.ts', '*/test/**/*.test.ts'],
          exclude: [...configDefaults.exclude, ...postgresTests],
        },
      },
    ],
  },
});
