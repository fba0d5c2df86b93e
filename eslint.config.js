// Type-aware lint: the rules that catch what tsc does not (floating promises above all).
import js from '@eslint/js';
import { createNodeResolver, importX } from 'eslint-plugin-import-x';
import tseslint from 'typescript-eslint';

/** webhook-api's layers, top first: each may import only the ones after it. */
const webhookApiLayers = [['http'], ['ingest', 'delivery'], ['configs'], ['queue'], ['store']];

/** no-restricted-paths zones: a layer may not import the composition roots nor any layer above it, nor a sibling. */
function layerZones(root, layers) {
  return layers.flatMap((layer, index) =>
    layer.map((folder) => ({
      target: `${root}/${folder}`,
      from: [
        `${root}/*.ts`,
        ...layers
          .slice(0, index + 1)
          .flat()
          .filter((above) => above !== folder)
          .map((above) => `${root}/${above}/**/*`),
      ],
      message: `${root} imports run one way: ${layers.map((l) => l.join('/')).join(' → ')} (see docs/architecture.md).`,
    })),
  );
}

export default tseslint.config(
  // The cycle fixture is a deliberate import cycle that scripts/src/gates/ci-gates.test.ts lints on purpose.
  { ignores: ['**/node_modules/**', '**/dist/**', '**/docs-api/**', 'data/**', 'proto/src/generated/**', 'scripts/test/cycle-fixture/**'] },
  js.configs.recommended,
  ...tseslint.configs.strictTypeChecked,
  {
    // Circular imports fail the build: a module is read top to bottom, and a cycle makes one of its
    // parts undefined at load time depending on which file is imported first. Workspace packages
    // resolve through their package.json exports, so cycles across packages count too.
    files: ['**/*.ts'],
    plugins: { 'import-x': importX },
    settings: {
      'import-x/extensions': ['.ts', '.js'],
      'import-x/parsers': { '@typescript-eslint/parser': ['.ts'] },
      // The @platform/source condition first: the SDK and proto resolve to their sources, as in tsconfig.json.
      'import-x/resolver-next': [createNodeResolver({ extensions: ['.ts', '.js'], conditionNames: ['@platform/source', 'import', 'require', 'default'] })],
    },
    rules: { 'import-x/no-cycle': 'error' },
  },
  {
    // webhook-api's layers import downward only: the HTTP edge, then ingest and delivery, then the
    // configuration rules, then the queue, then the store; the composition roots at the top of src/
    // (main.ts, deliverer-main.ts, settings.ts, database.ts) are imported by none of them.
    files: ['webhook-api/src/**/*.ts'],
    ignores: ['**/*.test.ts'],
    rules: { 'import-x/no-restricted-paths': ['error', { zones: layerZones('webhook-api/src', webhookApiLayers) }] },
  },
  {
    // The published SDK stays off PostgreSQL: what the services share on pg lives in the private
    // @platform/postgres workspace, which the SDK's consumers never install.
    files: ['shared/src/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [{ name: 'pg', message: 'the published SDK does not depend on pg: put PostgreSQL code in @platform/postgres (postgres/).' }],
          patterns: [{ group: ['@platform/postgres', '@platform/postgres/*'], message: 'the published SDK cannot import a private workspace.' }],
        },
      ],
    },
  },
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/restrict-template-expressions': ['error', { allowNumber: true }],
      'no-console': 'error',
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_', caughtErrors: 'none' },
      ],
    },
  },
  {
    // A source file reads in one sitting: past 300 lines it holds two things and splits in two. The
    // test files beside it may run longer (one file per unit under test, its cases one after another).
    files: ['**/*.ts'],
    ignores: ['**/*.test.ts'],
    rules: { 'max-lines': ['error', { max: 300 }] },
  },
  {
    files: ['scripts/**', 'devtools/**', '**/bench/**'],
    rules: { 'no-console': 'off' },
  },
  {
    files: ['eslint.config.js'],
    extends: [tseslint.configs.disableTypeChecked],
  },
);
