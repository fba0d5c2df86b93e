// The gate of the one error model: every error class in a workspace's src carries a stable
// UPPER_SNAKE code, unless the code is part of a published contract (listed here, with why).
import { globSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { errorClassesOf, upperSnake, type ErrorClass } from './error-classes.ts';
import { repoRoot } from '../repo-root.ts';

/** Codes kept as they are, each for a contract published with it. */
const published: Readonly<Record<string, string>> = {
  'dev-platform/src/api/api-error.ts ApiError': 'the platform API’s error body, `{ "error": "invalid_request" }`, in the OAuth style clients read',
  'shared/src/tools/tool-errors.ts ToolError': 'its code is chosen by the tool’s author and sent to the agent; the SDK’s API report publishes it as a string',
  'shared/src/errors/catalog-error.ts CatalogError': 'the base of the catalogs: its code is its catalog’s keys, checked in each subclass',
};

const key = (found: ErrorClass) => `${found.file} ${found.className}`;
const problemOf = (found: ErrorClass): string | undefined =>
  found.problem ?? (found.codes.every((code) => upperSnake.test(code)) ? undefined : `code ${found.codes.join(' | ')} is not UPPER_SNAKE without ERR_`);

describe('the error model', () => {
  const workspaces = (JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { workspaces: string[] }).workspaces;
  const sources = workspaces
    .flatMap((workspace) => globSync(`${workspace}/src/**/*.ts`, { cwd: repoRoot }))
    .filter((file) => !file.endsWith('.test.ts'))
    .map((file) => join(repoRoot, file));
  const classes = errorClassesOf(sources, join(repoRoot, 'tsconfig.json'), repoRoot);

  it('finds the error classes however they extend Error (the catalogs, a TypeError, a class not exported)', () => {
    expect(classes.map(key)).toEqual(
      expect.arrayContaining([
        'webhook-api/src/http/errors.ts WebhookApiError',
        'shared/src/tools/tool-definition.ts ToolDefinitionError',
        'mcp-server/src/registry/service-tools.ts Refusal',
      ]),
    );
  });

  it('gives every error class in a workspace’s src a stable UPPER_SNAKE code', () => {
    const problems = classes
      .filter((found) => !(key(found) in published))
      .flatMap((found) => {
        const problem = problemOf(found);
        return problem ? [`${key(found)}: ${problem}`] : [];
      });
    expect(problems).toEqual([]);
  });

  it('lists as published only classes that exist', () => {
    const byKey = new Map(classes.map((found) => [key(found), found]));
    expect(Object.keys(published).filter((name) => !byKey.has(name))).toEqual([]);
  });

  it('reads a class with no code, a code of the wrong spelling, or one that is no literal, as a problem', () => {
    const fixtures = globSync('scripts/test/error-code-fixture/*.ts', { cwd: repoRoot }).map((file) => join(repoRoot, file));
    const found = errorClassesOf(fixtures, join(repoRoot, 'tsconfig.json'), repoRoot);
    expect(Object.fromEntries(found.map((item) => [item.className, problemOf(item) ?? 'fine']))).toEqual({
      Uncoded: 'no code',
      KebabCoded: 'code bad-code is not UPPER_SNAKE without ERR_',
      NodeStyleCoded: 'code ERR_SOMETHING_FAILED is not UPPER_SNAKE without ERR_',
      LooselyCoded: 'code is string',
      WellCoded: 'fine',
      InheritsItsCode: 'fine',
      UncodedTypeError: 'no code',
    });
  });
});
