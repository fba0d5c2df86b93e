// The official MCP conformance suite against the gateway, as a client would meet it: signed in
// with a person's token (added by a preloaded undici dispatcher, since the suite has no option for
// one). Each scenario runs in its own process; the baseline names any that does not apply.
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

async function scenario(name: string): Promise<{ exitCode: number; checks: Check[]; output: string }> {
  const out = mkdtempSync(join(tmpdir(), 'conformance-'));
  const args = ['--import', resolve(import.meta.dirname, 'bearer-preload.ts'), suite, 'server', '--url', stack().mcpUrl, '--scenario', name, '-o', out];
  args.push('--expected-failures', resolve(import.meta.dirname, 'conformance-baseline.yml'));
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
    const { exitCode, checks, output } = await scenario(name);
    const failures = checks.filter((check) => check.status === 'FAILURE' || check.status === 'WARNING');
    expect(failures, output).toEqual([]);
    expect(checks.length, output).toBeGreaterThan(0);
    expect(exitCode, output).toBe(0);
  });
});
