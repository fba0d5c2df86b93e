// `npm run demo -- --start`, the one-line try: the demo brings the stack up itself, runs every step
// against it, and stops it again. Run here with `--trace`, which adds only the demo's own OTLP
// receiver to the stack it starts: after the demo, it draws the trace of one tool call across the
// processes, as a tree and as a picture.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { freePort, runNpm, stackEnvironment, takenPorts } from './stack-process.ts';

describe('npm run demo -- --start --trace', () => {
  it('starts the stack, sees every step of the demo, prints the trace of one tool call across the processes, and stops the stack', async () => {
    const stack = await stackEnvironment({ DEMO_TRACE_PORT: String(await freePort()) });
    const picture = join(mkdtempSync(join(tmpdir(), 'demo-trace-')), 'trace.svg');
    const demo = runNpm(['run', 'demo', '--', '--start', '--trace', '--trace-svg', picture], stack.env);
    expect(await demo.exited, demo.output()).toBe(0);
    const output = demo.output();
    expect(output).toContain('starting the stack');
    for (let step = 1; step <= 10; step++) expect(output).toContain(`[${step}/10]`);
    expect(output).toContain('Demo complete: every step was seen.');
    expect(output).toContain('stopping the stack');
    expect(await takenPorts(stack.env)).toEqual([]);

    // The trace as a tree: the demo, the gateway, the tool service and the webhook API, with durations.
    expect(output).toContain('The trace of one tool call');
    const tree = output.slice(output.indexOf('The trace of one tool call'));
    expect(tree).toMatch(/^demo\s+tools\/call list_webhooks \(the MCP client\)\s+[\d.]+ ms$/m);
    expect(tree).toMatch(/^mcp-server\s+ {2}POST \/mcp.*ms$/m);
    expect(tree).toMatch(/^mcp-server\s+ {4}tools\/call list_webhooks.*ms$/m);
    expect(tree).toMatch(/^webhook-tools\s+ +platform\.tools\.v1\.ToolService\/CallTool.*ms$/m);
    expect(tree).toMatch(/^webhook-api\s+ +GET \/v2\/webhooks.*ms$/m);
    expect(tree).toContain('link back to the ingest request');
    // The same trace as a waterfall picture: a bar per span of the four processes.
    expect(tree).toContain(`The same trace as a picture: ${picture}`);
    const svg = readFileSync(picture, 'utf8');
    expect(svg).toMatch(/^<svg xmlns="http:\/\/www.w3.org\/2000\/svg"/);
    for (const service of ['demo', 'mcp-server', 'webhook-tools', 'webhook-api']) expect(svg).toContain(`class="legend">${service}<`);
    expect(svg).toContain('>execute_tool list_webhooks<');
    for (const secret of stack.secrets) {
      expect(output).not.toContain(secret);
      expect(svg).not.toContain(secret);
    }
  }, 180_000);
});
