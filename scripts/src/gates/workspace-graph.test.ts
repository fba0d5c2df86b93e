// The workspaces depend on each other in layers, never in a circle: devtools below everything, the
// services above it, scripts (which runs the services) on top. A cycle makes npm's install order,
// and which copy of a package a workspace sees, depend on chance.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../repo-root.ts';

interface Manifest {
  readonly name: string;
  readonly workspaces?: readonly string[];
  readonly dependencies?: Record<string, string>;
  readonly devDependencies?: Record<string, string>;
  readonly peerDependencies?: Record<string, string>;
  readonly optionalDependencies?: Record<string, string>;
}

const manifest = (folder: string) => JSON.parse(readFileSync(join(repoRoot, folder, 'package.json'), 'utf8')) as Manifest;

/** Each workspace's package name, and the workspaces it depends on in any way (dev dependencies too). */
function workspaceGraph(): Map<string, string[]> {
  const manifests = (manifest('.').workspaces ?? []).map(manifest);
  const names = new Set(manifests.map((m) => m.name));
  return new Map(
    manifests.map((m) => {
      const all = { ...m.dependencies, ...m.devDependencies, ...m.peerDependencies, ...m.optionalDependencies };
      return [m.name, Object.keys(all).filter((name) => names.has(name))];
    }),
  );
}

/** One cycle of the graph as a path that ends where it starts, or undefined when there is none. */
function findCycle(graph: ReadonlyMap<string, readonly string[]>): string[] | undefined {
  const done = new Set<string>();
  const visit = (name: string, path: readonly string[]): string[] | undefined => {
    const at = path.indexOf(name);
    if (at >= 0) return [...path.slice(at), name];
    if (done.has(name)) return undefined;
    for (const next of graph.get(name) ?? []) {
      const cycle = visit(next, [...path, name]);
      if (cycle) return cycle;
    }
    done.add(name);
    return undefined;
  };
  for (const name of graph.keys()) {
    const cycle = visit(name, []);
    if (cycle) return cycle;
  }
  return undefined;
}

// By folder: a package's name need not be its folder's (the SDK's, in shared/).
const services = ['shared', 'proto', 'dev-platform', 'mcp-server', 'tool-service', 'webhook-api'].map((folder) => manifest(folder).name);

describe('the workspace graph', () => {
  const graph = workspaceGraph();

  it('has no cycle, dev dependencies included', () => {
    expect(graph.size).toBeGreaterThanOrEqual(7);
    expect(findCycle(graph)?.join(' -> ')).toBeUndefined();
  });

  it('keeps the services off @platform/scripts, which runs them: what they share with it lives in @platform/devtools', () => {
    for (const service of services) expect(graph.get(service), service).not.toContain('@platform/scripts');
  });

  it('keeps @platform/devtools below every other workspace', () => {
    expect(graph.get('@platform/devtools')).toEqual([]);
  });

  it('keeps the published SDK off pg and off @platform/postgres, where the services share their PostgreSQL code', () => {
    const sdk = manifest('shared');
    const shipped = Object.keys({ ...sdk.dependencies, ...sdk.peerDependencies, ...sdk.optionalDependencies });
    expect(shipped.filter((name) => name === 'pg' || name === '@platform/postgres')).toEqual([]);
    expect(graph.get('@platform/postgres')).toEqual(['@platform/devtools']);
  });

  it('finds a cycle when there is one', () => {
    const cyclic = new Map([
      ['a', ['b']],
      ['b', ['c']],
      ['c', ['a']],
      ['d', ['a']],
    ]);
    expect(findCycle(cyclic)).toEqual(['a', 'b', 'c', 'a']);
    expect(
      findCycle(
        new Map([
          ['a', ['b']],
          ['b', []],
        ]),
      ),
    ).toBeUndefined();
  });
});
