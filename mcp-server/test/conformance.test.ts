// The official MCP conformance suite against the gateway, as a client would meet it: signed in
// with a person's token (added by a preloaded undici dispatcher, since the suite has no option for
// one). The whole suite passes with the baseline, which names every scenario that does not apply
// and why; the scenarios that apply are run one by one too, with no warning allowed.
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { stackForTests } from './harness.ts';

const stack = stackForTests();
const run = promisify(execFile);
const require = createRequire(import.meta.url);
const suite = join(dirname(require.resolve('@modelcontextprotocol/conformance/package.json')), 'dist/index.js');

interface Check {
  readonly id: string;
  readonly status: 'SUCCESS' | 'FAILURE' | 'WARNING' | 'INFO';
  readonly errorMessage?: string;
}

const baseline = resolve(import.meta.dirname, 'conformance-baseline.yml');

/** Runs the suite with `selection` (`--scenario <name>` or `--suite all`): its exit code, the checks of the first scenario, and what it printed. */
async function scenario(...selection: string[]): Promise<{ exitCode: number; checks: Check[]; output: string }> {
  const out = mkdtempSync(join(tmpdir(), 'conformance-'));
  const args = ['--import', resolve(import.meta.dirname, 'bearer-preload.ts'), suite, 'server', '--url', stack().mcpUrl, ...selection, '-o', out];
  args.push('--expected-failures', baseline);
  const env = { ...process.env, MCP_BEARER_TOKEN: await stack().tokenFor('oscar'), MCP_BEARER_ORIGIN: stack().mcpUrl };
  let exitCode = 0;
  let output: string;
  try {
    output = (await run(process.execPath, args, { env, timeout: 60_000 })).stdout;
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    exitCode = typeof failed.code === 'number' ? failed.code : 1;
    output = `${failed.stdout ?? ''}${failed.stderr ?? ''}`;
  }
  const [results] = readdirSync(out);
  const checks = results === undefined ? [] : (JSON.parse(readFileSync(join(out, results, 'checks.json'), 'utf8')) as Check[]);
  return { exitCode, checks, output };
}

describe('the MCP conformance suite', () => {
  it.each(['server-initialize', 'ping', 'tools-list', 'dns-rebinding-protection'])('passes %s', { timeout: 60_000 }, async (name) => {
    const { exitCode, checks, output } = await scenario('--scenario', name);
    const failures = checks.filter((check) => check.status === 'FAILURE' || check.status === 'WARNING');
    expect(failures, output).toEqual([]);
    expect(checks.length, output).toBeGreaterThan(0);
    expect(exitCode, output).toBe(0);
  });

  it('passes the whole suite, every scenario that does not apply listed in the baseline with its reason', { timeout: 120_000 }, async () => {
    const { exitCode, output } = await scenario('--suite', 'all');
    expect(output).toContain('Baseline check passed: all failures are expected.');
    expect(exitCode, output).toBe(0);
    // Every listed scenario carries a reason: a comment above it or beside it.
    const lines = readFileSync(baseline, 'utf8').split('\n');
    const listed = lines.flatMap((line, index) => (/^\s*- /.test(line) ? [index] : []));
    expect(listed.length).toBeGreaterThan(0);
    for (const index of listed) {
      const reasoned =
        lines[index]?.includes('#') ||
        lines
          .slice(0, index)
          .reverse()
          .find((line) => !/^\s*- /.test(line))
          ?.trim()
          .startsWith('#');
      expect(reasoned, lines[index]).toBe(true);
    }
  });
});
