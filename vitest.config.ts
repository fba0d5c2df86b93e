import { availableParallelism } from 'node:os';
import { configDefaults, defineConfig } from 'vitest/config';

// The test files that take a PostgreSQL database (inject('postgresUrl')): the webhook API's (its
// store tests run on SQLite and PostgreSQL) and start:pg's. A rule by folder, not a list of files,
// so the webhook API's files can move within it; a file that needs PostgreSQL outside this rule
// fails saying so (freshDatabase).
const postgresTests = [
  'webhook-api/**/*.test.ts',
  'postgres/**/*.test.ts',
  'scripts/test/start-pg.test.ts',
  'mcp-server/test/replicas.test.ts',
  'mcp-server/test/tasks.test.ts',
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

const unitTests = '*/src/**/*.test.ts';
const processTests = '*/test/**/*.test.ts';
// The repository-wide gates (lint rules and CI steps, error codes, the workspace graph, .env.example,
// the runtime, the SDK's public surface): checks of the whole repository, not of a unit, so a
// project of their own beside the unit tier (`npm run test:gates`), which runs without them.
const gateTests = ['scripts/src/gates/**/*.test.ts', 'shared/src/public-surface.test.ts'];
// The unit files that mock a module (vi.mock) for the whole file: each runs in a fresh process (the
// unit-isolated project), where the module is not loaded yet and the mock ends with the file.
// unit-file-guard.ts fails any other unit file that mocks one.
const isolatedUnitTests = ['webhook-api/src/http/metrics.routes.test.ts'];
const unitWorkers = Math.max(2, availableParallelism() - 1);
const tiers = [
  // Each worker runs file after file in one process, which keeps the modules loaded from one file
  // to the next (loading them again for each file was half the tier's time). So a file leaves the
  // process as it found it: no module mocked, nock restored, process.env as it was, no listener
  // left on the process, real timers, telemetry shut down; and its servers, pools, stores and
  // timers closed. unit-file-guard.ts fails a file that leaves one of the first six changed, and
  // undoes the change so that the next file is not the one to fail.
  {
    name: 'unit',
    include: [unitTests],
    groupOrder: 0,
    maxWorkers: unitWorkers,
    isolate: false,
    setupFiles: ['./devtools/src/unit-file-guard.ts'],
    other: [processTests, ...isolatedUnitTests],
  },
  // One file at a time in one process, which keeps the modules every file imports (the SDKs, the
  // stack's parts) loaded from one file to the next: each file starts and stops what it runs.
  { name: 'process', include: [processTests], groupOrder: 1, maxWorkers: 1, isolate: false, setupFiles: [], other: [unitTests] },
];

// The SDK and proto packages export dist/ to their consumers and, under this condition, their
// TypeScript sources to the repository's own tests (tsconfig.json and .npmrc set it too).
const sourceConditions = ['@platform/source'];

export default defineConfig({
  resolve: { conditions: sourceConditions },
  ssr: { resolve: { conditions: sourceConditions, externalConditions: sourceConditions } },
  test: {
    reporters: ['default', './scripts/src/summary-reporter.ts'],
    // Tests bind real loopback servers; the unit files that mock modules run each in a fresh process (unit-isolated).
    pool: 'forks',
    testTimeout: 20_000,
    hookTimeout: 30_000,
    // Two tiers, one after the other. The unit tests beside the code (*/src) first, on every CPU but
    // one (at least two), each worker keeping the modules it loaded from one file to the next (see
    // tiers). Then the whole-process tests (*/test: stacks, child processes, browsers, receivers
    // that time what arrives) one file at a time, as on a 2-CPU CI machine their timings need.
    // Within a tier, the files that take PostgreSQL are a project of their own: Vitest runs a
    // project's global setup only when some of its files run, so the throwaway cluster starts for
    // the files that need it, not for `vitest run shared/...`.
    projects: [
      ...tiers.flatMap(({ name, include, groupOrder, maxWorkers, isolate, setupFiles, other }) => [
        {
          extends: true,
          test: {
            name: `${name}-postgres`,
            include: [...postgresTests, ...registryStoreTests],
            exclude: [...configDefaults.exclude, ...other],
            globalSetup: ['./devtools/src/postgres-global-setup.ts'],
            setupFiles,
            maxWorkers,
            isolate,
            sequence: { groupOrder },
          },
        },
        {
          extends: true,
          test: {
            name,
            // Not examples/tool-service/test: the template's tests run in a project of their own, on the
            // packed SDK (scripts/test/tool-sdk-package.test.ts).
            include,
            exclude: [...configDefaults.exclude, ...postgresTests, ...gateTests, ...other],
            setupFiles,
            maxWorkers,
            isolate,
            sequence: { groupOrder },
          },
        },
      ]),
      {
        extends: true,
        test: { name: 'unit-isolated', include: isolatedUnitTests, maxWorkers: unitWorkers, isolate: true, sequence: { groupOrder: 0 } },
      },
      // Beside the unit tier in `npm test`, on the same workers.
      {
        extends: true,
        test: { name: 'gates', include: gateTests, maxWorkers: unitWorkers, isolate: true, sequence: { groupOrder: 0 } },
      },
    ],
  },
});
