// .env.example is the one list of every variable the stack reads: each name a settings loader
// declares, or a script of the stack reads, is in it.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from './stack.ts';

const workspaces = ['shared', 'dev-platform', 'mcp-server', 'tool-service', 'webhook-api'];

/** The variables declared by the settings loaders' shapes (`NAME: setting...`). */
function declaredBySettings(): string[] {
  return workspaces.flatMap((workspace) => {
    const source = readFileSync(join(repoRoot, workspace, 'src/settings.ts'), 'utf8');
    return [...source.matchAll(/^\s+([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+):/gm)].map((m) => m[1] ?? '');
  });
}

/** The variables the stack's scripts read from their environment (`env.NAME`, `given.NAME`, `process.env.NAME`, and the keys of their settings shapes). */
function readByScripts(): string[] {
  const dir = join(repoRoot, 'scripts/src');
  return readdirSync(dir)
    .filter((file) => file.endsWith('.ts') && !file.endsWith('.test.ts'))
    .flatMap((file) =>
      [...readFileSync(join(dir, file), 'utf8').matchAll(/(?:\b(?:process\.env|env|given)\.|^\s+(?=[A-Z][A-Z0-9_]+: setting\.))([A-Z][A-Z0-9_]+)\b/gm)].map(
        (m) => m[1] ?? '',
      ),
    );
}

describe('.env.example', () => {
  const listed = readFileSync(join(repoRoot, '.env.example'), 'utf8');
  const named = (name: string) => new RegExp(`(^|[^A-Z0-9_])${name}=`, 'm').test(listed);

  it('lists every variable a settings loader declares', () => {
    const declared = [...new Set(declaredBySettings())];
    expect(declared.length).toBeGreaterThan(50);
    expect(declared.filter((name) => !named(name))).toEqual([]);
  });

  it("lists every variable npm start, start:pg and the demo read (NODE_ENV, the runtime's own, aside)", () => {
    const read = [...new Set(readByScripts())].filter((name) => name !== 'NODE_ENV');
    expect(read).toEqual(expect.arrayContaining(['LOG_FORMAT', 'DEMO_RECEIVER_PORT', 'STACK_POSTGRES_PORT']));
    expect(read.filter((name) => !named(name))).toEqual([]);
  });
});
