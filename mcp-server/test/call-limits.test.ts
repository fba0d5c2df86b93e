// A tool call is bounded: the gateway's deadline reaches the tool service, and an MCP client that
// cancels its request cancels the gRPC call, whose signal the tool sees abort.
import { describe, expect, it } from 'vitest';
import { errorMetaKey } from '../src/tool-results/index.ts';
import { eras, probeForTests, stackForTests, textOf, until } from './harness.ts';

const stack = stackForTests({ toolService: false, gatewayEnv: { TOOL_CALL_TIMEOUT_MS: '1500' } });
const slow = probeForTests(stack, { serviceName: 'slow', tools: ['slow_echo'], delayMs: 10_000 });

describe.each(eras)('on the %s revision', (era) => {
  it('ends a call at the gateway’s deadline and says it may or may not have run', async () => {
    const client = await stack().connect('oscar', era);
    const before = slow().calls.length;
    const started = Date.now();
    const result = await client.callTool({ name: slow().exposed('slow_echo'), arguments: { text: 'late' } });
    expect(Date.now() - started).toBeLessThan(8_000);
    expect(result.isError).toBe(true);
    expect(result._meta?.[errorMetaKey]).toEqual({ code: 'DEADLINE_EXCEEDED' });
    expect(textOf(result)).toContain('1500 ms');
    await until(() => slow().calls[before]?.aborted === true, 'the tool saw its signal abort');
  });

  it('cancels the tool when the MCP client cancels its request', async () => {
    const client = await stack().connect('oscar', era);
    const before = slow().calls.length;
    const abort = new AbortController();
    const call = client.callTool({ name: slow().exposed('slow_echo'), arguments: { text: 'never mind' } }, { signal: abort.signal });
    await until(() => slow().calls.length > before, 'the call reached the tool');
    abort.abort();
    await expect(call).rejects.toThrow();
    await until(() => slow().calls[before]?.aborted === true, 'the tool saw its signal abort', 5_000);
  });
});
