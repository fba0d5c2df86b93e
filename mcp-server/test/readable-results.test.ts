// Results every MCP client can read: an error result carries no structured content for a client
// to check against the tool's output schema (the v1 SDK checks even errors, and threw -32602 before
// the agent saw a word), and a hostile tool service's results are checked before any client sees
// them: off-schema structured content, control and text-direction characters, a result too large.
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1Transport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import { errorMetaKey } from '../src/tool-results/index.ts';
import { eras, stackForTests, textOf, type Stack } from './harness.ts';
import { registeredRawServiceForTests } from './raw-tool-service.ts';

const stack = stackForTests();
const unknownWebhook = { webhookConfigId: '00000000-0000-4000-8000-000000000000' };

/** A client on the v1 SDK (`@modelcontextprotocol/sdk` 1.x), as hosts and the MCP Inspector of that line run it. */
async function v1Client(at: Stack, username = 'oscar'): Promise<V1Client> {
  const client = new V1Client({ name: 'v1-host', version: '1.0.0' });
  const token = await at.tokenFor(username);
  await client.connect(new V1Transport(new URL(at.mcpUrl), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
  return client;
}

const v1Text = (result: Awaited<ReturnType<V1Client['callTool']>>) =>
  (result.content as { type: string; text?: string }[]).map((block) => (block.type === 'text' ? (block.text ?? '') : '')).join('');

describe('a tool’s own error result (get_webhook of an unknown id)', () => {
  it('is read by a v1 SDK client that listed the tool’s output schema, message and all', async () => {
    const client = await v1Client(stack());
    const { tools } = await client.listTools();
    expect(tools.find((tool) => tool.name === 'get_webhook')?.outputSchema).toBeDefined();

    const result = await client.callTool({ name: 'get_webhook', arguments: unknownWebhook });

    expect(result.isError).toBe(true);
    expect(result.structuredContent).toBeUndefined();
    expect(v1Text(result)).toContain(unknownWebhook.webhookConfigId);
    await client.close();
  });

  it.each(eras)('is read by a v2 client on the %s revision, its code in _meta', async (era) => {
    const client = await stack().connect('oscar', era);
    await client.listTools();
    const result = await client.callTool({ name: 'get_webhook', arguments: unknownWebhook });

    expect(result.isError).toBe(true);
    expect(result.structuredContent).toBeUndefined();
    expect(textOf(result)).toContain(unknownWebhook.webhookConfigId);
    expect(result._meta?.[errorMetaKey]).toMatchObject({ code: 'NOT_FOUND' });
  });

  it('is read by a v1 client when the tool service refused the arguments', async () => {
    const client = await v1Client(stack());
    await client.listTools();
    const result = await client.callTool({ name: 'list_webhooks', arguments: { companyId: 'one' } });

    expect(result.isError).toBe(true);
    expect(v1Text(result)).toContain('companyId');
    await client.close();
  });
});

describe('a hostile tool service', () => {
  const hugeJson = JSON.stringify({ blob: 'z'.repeat(7_800_000) });

  registeredRawServiceForTests(stack, 'hostile', 'count', {
    tools: [
      { name: 'shout', description: 'Answers with escapes.', inputSchemaJson: '{"type":"object"}' },
      {
        name: 'count',
        description: 'Answers off its own schema.',
        inputSchemaJson: '{"type":"object"}',
        outputSchemaJson: JSON.stringify({ type: 'object', required: ['count'], properties: { count: { type: 'number' } } }),
        readOnlyHint: true,
      },
      { name: 'flood', description: 'Answers 7.8 MB.', inputSchemaJson: '{"type":"object"}', readOnlyHint: true },
    ],
    answer: (request) => {
      if (request.name === 'shout') return { resultJson: '{"ok":true}', text: 'Done\u001b[2J\u0000 \u202Eetirw\u0007', isError: false };
      if (request.name === 'count') return { resultJson: '{"count":"many"}', text: '', isError: false };
      return { resultJson: hugeJson, text: '', isError: false };
    },
  });

  describe.each(eras)('seen by a v2 client on the %s revision', (era) => {
    const call = async (name: string): Promise<CallToolResult> => {
      const client = await stack().connect('oscar', era);
      await client.listTools();
      return client.callTool({ name, arguments: {} });
    };

    it('has its text cleaned of terminal escapes, NUL and text-direction controls', async () => {
      expect(textOf(await call('fleet-insights__shout'))).toBe('Done[2J etirw');
    });

    it('has a success off its own output schema turned into an error naming the service', async () => {
      const result = await call('fleet-insights__count');
      expect(result.isError).toBe(true);
      expect(result.structuredContent).toBeUndefined();
      expect(textOf(result)).toContain('The service hostile (app fleet-insights) answered the tool fleet-insights__count with a result that does not match');
    });

    it('has a 7.8 MB result refused as an error naming the limit', async () => {
      const result = await call('fleet-insights__flood');
      expect(result.isError).toBe(true);
      expect(result._meta?.[errorMetaKey]).toMatchObject({ code: 'RESULT_TOO_LARGE' });
      expect(textOf(result)).toContain('MCP_MAX_TOOL_RESULT_BYTES');
    });

    it('is logged with the outcome the client got, not as OK', async () => {
      await call('fleet-insights__count');
      const lines = stack()
        .logs.flatMap((line) => line.split('\n'))
        .filter((line) => line.includes('"msg":"tool call"') && line.includes('"tool":"fleet-insights__count"'))
        .map((line) => JSON.parse(line) as { outcome: string });
      expect(lines.length).toBeGreaterThan(0);
      expect(new Set(lines.map((line) => line.outcome))).toEqual(new Set(['OFF_SCHEMA_RESULT']));
    });
  });

  it('cannot make a v1 client throw with off-schema structured content', async () => {
    const client = await v1Client(stack());
    await client.listTools();
    const result = await client.callTool({ name: 'fleet-insights__count', arguments: {} });

    expect(result.isError).toBe(true);
    expect(v1Text(result)).toContain('does not match the tool');
    await client.close();
  });
});
