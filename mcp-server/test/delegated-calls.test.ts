// The gateway end to end on loopback, on both MCP revisions: the real dev platform, webhook API,
// webhook tool service and a probe service that records inside itself the token each call
// brought. A tool runs only on a token delegated to its app for the calling person; the person's
// own token never reaches a tool service.
import { decodeJwt } from 'jose';
import { describe, expect, it } from 'vitest';
import { errorMetaKey } from '../src/tool-results/index.ts';
import { eras, probeForTests, stackForTests, textOf } from './harness.ts';

const stack = stackForTests();
const probe = probeForTests(stack);

describe.each(eras)('on the %s revision', (era) => {
  it('lists the tool services’ tools and calls one through a delegated token', async () => {
    const client = await stack().connect('oscar', era);
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(expect.arrayContaining(['create_webhook', 'list_webhooks', 'whoami', 'fleet-insights__echo']));
    const whoami = await client.callTool({ name: 'whoami', arguments: {} });
    expect(whoami.isError).toBeFalsy();
    expect(whoami.structuredContent).toMatchObject({ userId: 'u-oscar' });
    const created = await client.callTool({
      name: 'create_webhook',
      arguments: { companyId: 1, name: `From ${era}`, url: 'https://hooks.example.com/in', deliveryMode: 'Realtime' },
    });
    expect(created.isError).toBeFalsy();
    expect(created.structuredContent).toMatchObject({ webhook: { companyId: 1, name: `From ${era}` } });
  });

  it('sends the tool service a token for the person, delegated to its app, and never the caller’s own', async () => {
    const callerToken = await stack().tokenFor('oscar');
    const client = await stack().connect('oscar', era, { token: callerToken });
    const before = probe().calls.length;
    const result = await client.callTool({ name: probe().exposed('echo'), arguments: { text: 'hello' } });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({ echoed: { text: 'hello' }, callerId: 'u-oscar' });
    const [call] = probe().calls.slice(before);
    expect(call?.token).toBeDefined();
    expect(call?.token).not.toBe(callerToken);
    const claims = decodeJwt(call?.token ?? '');
    expect(claims.sub).toBe('u-oscar');
    expect(claims.act).toEqual({ sub: 'fleet-insights' });
    expect(claims.aud).toBe(stack().issuer);
    expect(claims.exp).toBeLessThanOrEqual(Math.floor(Date.now() / 1000) + 300);
  });

  it('shows a person only the tools they and the app may both use', async () => {
    const names = async (username: string) => (await (await stack().connect(username, era)).listTools()).tools.map((tool) => tool.name);
    const vera = await names('vera'); // device-viewer at company 1
    expect(vera).toEqual(expect.arrayContaining(['list_webhooks', 'whoami', probe().exposed('echo')]));
    expect(vera).not.toContain('create_webhook');
    const olivia = await names('olivia'); // owner of company 1, no roles: an owner gets no bypass
    expect(olivia).toEqual(expect.arrayContaining(['whoami', probe().exposed('echo')]));
    expect(olivia).not.toContain('list_webhooks');
    expect(olivia).not.toContain('create_webhook');
  });

  it('still lets the tool service refuse a call the listing would have hidden', async () => {
    const client = await stack().connect('vera', era);
    const result = await client.callTool({
      name: 'create_webhook',
      arguments: { companyId: 1, name: 'Not allowed', url: 'https://hooks.example.com/in', deliveryMode: 'Realtime' },
    });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain('device-overview:manage');
  });

  it('answers an unknown tool with a protocol error', async () => {
    const client = await stack().connect('oscar', era);
    await expect(client.callTool({ name: 'no_such_tool', arguments: {} })).rejects.toThrow(/no_such_tool not found/);
  });

  it('passes a tool’s own error result through with its text, and its code in _meta rather than structured content', async () => {
    const client = await stack().connect('oscar', era);
    // The webhook API answers 404; the tool reports it as its own error result, which passes through.
    const result = await client.callTool({ name: 'get_webhook', arguments: { webhookConfigId: '00000000-0000-4000-8000-000000000000' } });
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toBeUndefined();
    expect(result._meta?.[errorMetaKey]).toMatchObject({ code: 'NOT_FOUND' });
    expect(textOf(result)).toContain('00000000-0000-4000-8000-000000000000');
  });

  it('tells the agent which field is wrong when the arguments do not fit the schema', async () => {
    const client = await stack().connect('oscar', era);
    const result = await client.callTool({ name: 'list_webhooks', arguments: { companyId: 'one' } });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain('companyId');
  });
});

describe('secrets', () => {
  it('never logs the caller’s token, the delegated tokens or the app’s credentials', async () => {
    const callerToken = await stack().tokenFor('oscar');
    for (const era of eras) {
      const client = await stack().connect('oscar', era, { token: callerToken });
      await client.listTools();
      await client.callTool({ name: probe().exposed('echo'), arguments: { text: 'secret scan' } });
      await client.callTool({ name: 'whoami', arguments: {} });
    }
    const logs = [...stack().logs, ...probe().logs, ...(stack().tools?.logs ?? [])].join('');
    expect(logs).toContain('tool call');
    for (const token of [callerToken, ...probe().calls.map((call) => call.token)]) {
      expect(logs).not.toContain(token);
      expect(logs).not.toContain(token.split('.')[2]);
    }
    expect(logs).not.toContain('test-mcp-gateway-secret');
    expect(logs).not.toContain('test-fleet-insights-secret');
  });
});
