// The MCP Inspector's command line against the gateway, as a developer would run it: tools/list
// and tools/call with a person's token in --header, on both protocol revisions; a tool's image
// result written out as the bytes the tool made, its progress reported, and a tool that needs an
// answer from the person (which a command line cannot give) refused with a message saying so.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { killedIfTestFails } from '@platform/devtools/test-processes';
import { describe, expect, it } from 'vitest';
import { conformanceToolsForTests, stackForTests } from './harness.ts';

const stack = stackForTests();
conformanceToolsForTests(stack);
/** The conformance suite's 1x1 PNG, as examples/conformance-tools.ts answers it. */
const png = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==', 'base64');
const run = promisify(execFile);
const require = createRequire(import.meta.url);
const inspector = join(dirname(require.resolve('@modelcontextprotocol/inspector/package.json')), 'clients/launcher/build/index.js');

async function inspect(args: readonly string[], token: string): Promise<{ exitCode: number; stdout: string; stderr: string }> {
  // Its own storage in a throwaway home: nothing of a test run lands in the developer's.
  const home = mkdtempSync(join(tmpdir(), 'inspector-'));
  const env = { ...process.env, HOME: home, MCP_STORAGE_DIR: home, MCP_INSPECTOR_SECRET_STORE: 'memory', MCP_AUTO_OPEN_ENABLED: 'false' };
  const argv = [inspector, '--cli', stack().mcpUrl, '--transport', 'http', '--format', 'json', '--stored-auth-only', ...args];
  argv.push('--header', `Authorization: Bearer ${token}`);
  try {
    // Killed if the test fails (or times out) first.
    const running = run(process.execPath, argv, { env, timeout: 60_000 });
    killedIfTestFails(running.child);
    const { stdout, stderr } = await running;
    return { exitCode: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { exitCode: typeof failed.code === 'number' ? failed.code : 1, stdout: failed.stdout ?? '', stderr: failed.stderr ?? '' };
  }
}

describe.each(['legacy', 'modern'])('the MCP Inspector CLI on the %s revision', { timeout: 60_000 }, (era) => {
  it('lists the tools', async () => {
    const { exitCode, stdout, stderr } = await inspect(['--protocol-era', era, '--method', 'tools/list'], await stack().tokenFor('oscar'));
    expect(exitCode, stderr).toBe(0);
    const { result } = JSON.parse(stdout) as { result: { tools: { name: string }[] } };
    expect(result.tools.map((tool) => tool.name)).toEqual(expect.arrayContaining(['list_webhooks', 'whoami']));
  });

  it('finds every tool schema portable: no warning of its strict check (a nullable field is anyOf, never a type array)', async () => {
    const { exitCode, stdout, stderr } = await inspect(['--protocol-era', era, '--method', 'tools/list', '--strict'], await stack().tokenFor('oscar'));
    expect(exitCode, stderr).toBe(0);
    expect(stderr).not.toMatch(/Warning: tool|Schema portability: \d+ errors?, [1-9]/);
    expect(stdout).toContain('"anyOf"');
    expect(stdout).not.toMatch(/"type":\[/);
  });

  it('calls a tool', async () => {
    const args = ['--protocol-era', era, '--method', 'tools/call', '--tool-name', 'list_companies', '--tool-args-json', '{}'];
    const { exitCode, stdout, stderr } = await inspect(args, await stack().tokenFor('oscar'));
    expect(exitCode, stderr).toBe(0);
    const { result } = JSON.parse(stdout) as { result: { isError?: boolean; structuredContent?: unknown } };
    expect(result.isError).toBeFalsy();
    expect(JSON.stringify(result.structuredContent)).toContain('Acme Telemetry');
  });

  it('reads a tool’s error result: the message shown, and the CLI’s own exit code for a tool error, not a protocol failure', async () => {
    const webhookId = '00000000-0000-4000-8000-000000000000';
    const args = [
      '--protocol-era',
      era,
      '--method',
      'tools/call',
      '--tool-name',
      'get_webhook',
      '--tool-args-json',
      JSON.stringify({ webhookConfigId: webhookId }),
    ];
    const { exitCode, stdout, stderr } = await inspect(args, await stack().tokenFor('oscar'));
    // Inspector 2.x exits 5 (TOOL_ERROR) for every result with isError: true, after printing it.
    expect(exitCode, stderr).toBe(5);
    expect(stderr).toContain('returned isError:true');
    const { result } = JSON.parse(stdout) as { result: { isError?: boolean; structuredContent?: unknown; content: { text?: string }[] } };
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toBeUndefined();
    expect(result.content.map((block) => block.text ?? '').join('')).toContain(webhookId);
  });

  it('is told to sign in when the token is refused', async () => {
    const { exitCode } = await inspect(['--protocol-era', era, '--method', 'tools/list'], 'not-a-token');
    expect(exitCode).toBe(3);
  });

  it("writes a tool's image out as the bytes the tool made", async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'inspector-out-')), 'image.png');
    const args = ['--protocol-era', era, '--method', 'tools/call', '--tool-name', 'test_image_content', '--output', file, '--output-format', 'raw'];
    const { exitCode, stderr } = await inspect(args, await stack().tokenFor('oscar'));
    expect(exitCode, stderr).toBe(0);
    expect(readFileSync(file)).toEqual(png);
  });

  it('sees a tool that needs the person’s answer refused with a message saying so, never a hang', async () => {
    const args = ['--protocol-era', era, '--method', 'tools/call', '--tool-name', 'test_input_required_result_elicitation'];
    const started = performance.now();
    const { stdout, stderr } = await inspect(args, await stack().tokenFor('oscar'));
    expect(performance.now() - started).toBeLessThan(30_000);
    const said = `${stdout}${stderr}`.replaceAll('\\"', '"');
    expect(said).toContain('needs a form ("What is your name?") to go on, but this client did not declare that it can answer');
  });
});
