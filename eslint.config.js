// Type-aware lint: the rules that catch what tsc does not (floating promises above all).
import js from '@eslint/js';
import { createNodeResolver, importX } from 'eslint-plugin-import-x';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  // The cycle fixture is a deliberate import cycle that scripts/src/gates.test.ts lints on purpose.
  { ignores: ['**/node_modules/**', 'data/**', 'proto/src/generated/**', 'scripts/test/cycle-fixture/**'] },
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
      'import-x/resolver-next': [createNodeResolver({ extensions: ['.ts', '.js'] })],
    },
    rules: { 'import-x/no-cycle': 'error' },
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
    files: ['scripts/**', 'devtools/**', '**/bench/**'],
    rules: { 'no-console': 'off' },
  },
  {
    files: ['eslint.config.js'],
    extends: [tseslint.configs.disableTypeChecked],
  },
);
