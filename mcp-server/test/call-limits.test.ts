// A tool call is bounded: the gateway's deadline reaches the tool service, and an MCP client that
// cancels its request cancels the gRPC call, whose signal the tool sees abort. A tool may declare a
// shorter limit of its own; a longer one is capped at the gateway's maximum (TOOL_CALL_TIMEOUT_MS).
import { describe, expect, it } from 'vitest';
import { errorMetaKey } from '../src/tool-results/index.ts';
import { eras, probeForTests, stackForTests, textOf, until } from './harness.ts';

const stack = stackForTests({ toolService: false, gatewayEnv: { TOOL_CALL_TIMEOUT_MS: '1500' } });
const slow = probeForTests(stack, { serviceName: 'slow', tools: ['slow_echo'], delayMs: 10_000 });
const hasty = probeForTests(stack, { serviceName: 'hasty', tools: ['hasty_echo'], delayMs: 10_000, toolTimeoutMs: 300 });
const patient = probeForTests(stack, { serviceName: 'patient', tools: ['patient_echo'], delayMs: 10_000, toolTimeoutMs: 60_000 });

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

  it('ends a call at the time limit the tool declares, and names it and the gateway’s maximum', async () => {
    const client = await stack().connect('oscar', era);
    const before = hasty().calls.length;
    const result = await client.callTool({ name: hasty().exposed('hasty_echo'), arguments: { text: 'late' } });
    expect(result.isError).toBe(true);
    expect(result._meta?.[errorMetaKey]).toEqual({ code: 'DEADLINE_EXCEEDED' });
    expect(textOf(result)).toContain('did not finish within 300 ms, the time limit the tool declares (the gateway allows at most 1500 ms)');
    await until(() => hasty().calls[before]?.aborted === true, 'the tool saw its signal abort');
  });

  it('caps a tool’s longer limit at the gateway’s maximum, and says so', async () => {
    const client = await stack().connect('oscar', era);
    const before = patient().calls.length;
    const started = Date.now();
    const result = await client.callTool({ name: patient().exposed('patient_echo'), arguments: { text: 'late' } });
    expect(Date.now() - started).toBeLessThan(8_000);
    expect(result._meta?.[errorMetaKey]).toEqual({ code: 'DEADLINE_EXCEEDED' });
    expect(textOf(result)).toContain("did not finish within 1500 ms, the gateway's time limit (TOOL_CALL_TIMEOUT_MS, which caps the tool's own 60000 ms)");
    await until(() => patient().calls[before]?.aborted === true, 'the tool saw its signal abort');
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
