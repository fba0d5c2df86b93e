// What an attacker, or a careless client, sends the gateway: a client mistake is a 4xx with a
// JSON-RPC error, never a 500; sessions stay with the person who opened them; one person cannot
// take every session; nothing the client made up is repeated at length in the log.
import { gzipSync } from 'node:zlib';
import { request } from 'undici';
import { describe, expect, it } from 'vitest';
import { stackForTests } from './harness.ts';

const stack = stackForTests({ toolService: false, gatewayEnv: { MCP_MAX_SESSIONS_PER_CALLER: '2' } });

const initialize = (id = 1) => ({
  jsonrpc: '2.0',
  id,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'attacker', version: '1' } },
});

interface Sent {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: string;
}

async function send(method: 'POST' | 'GET' | 'DELETE', headers: Record<string, string> | string[], body?: string | Buffer): Promise<Sent> {
  const given = Array.isArray(headers) ? headers : Object.entries(headers).flat();
  const names = given.filter((_, index) => index % 2 === 0);
  const base = ['accept', 'application/json, text/event-stream', ...(names.includes('content-type') ? [] : ['content-type', 'application/json'])];
  const response = await request(stack().mcpUrl, { method, headers: [...base, ...given], ...(body !== undefined && { body }) });
  // Only refusals are expected here, so even a GET answers at once.
  const text = await response.body.text();
  return { status: response.statusCode, headers: response.headers, body: text };
}

async function openSession(username: string): Promise<{ id: string; authorization: string }> {
  const authorization = `Bearer ${await stack().tokenFor(username)}`;
  const answer = await send('POST', { authorization }, JSON.stringify(initialize()));
  expect(answer.status).toBe(200);
  const id = answer.headers['mcp-session-id'];
  if (typeof id !== 'string') throw new Error('no session id');
  await send(
    'POST',
    { authorization, 'mcp-session-id': id, 'mcp-protocol-version': '2025-11-25' },
    JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
  );
  return { id, authorization };
}

const listTools = (session: { id: string; authorization: string }, authorization = session.authorization) =>
  send(
    'POST',
    { authorization, 'mcp-session-id': session.id, 'mcp-protocol-version': '2025-11-25' },
    JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/list' }),
  );

describe('bodies a client should not send', () => {
  it('answers a body nested 10,000 levels deep with 400, not a crash', async () => {
    const authorization = `Bearer ${await stack().tokenFor('oscar')}`;
    const deep = `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"x":${'['.repeat(10_000)}${']'.repeat(10_000)}}}`;
    const answer = await send('POST', { authorization }, deep);
    expect(answer.status).toBe(400);
    expect(JSON.parse(answer.body)).toMatchObject({ error: { code: -32600, message: expect.stringContaining('deeper than 100 levels') as unknown } });
  });

  it('answers a body that claims gzip but is not with 400', async () => {
    const authorization = `Bearer ${await stack().tokenFor('oscar')}`;
    const answer = await send('POST', { authorization, 'content-encoding': 'gzip' }, 'not gzip at all');
    expect(answer.status).toBe(400);
    expect(JSON.parse(answer.body)).toMatchObject({ error: { code: -32600 } });
  });

  it('inflates a real gzip body within the size bound, and refuses one that inflates past it', async () => {
    const authorization = `Bearer ${await stack().tokenFor('oscar')}`;
    const fine = await send('POST', { authorization, 'content-encoding': 'gzip' }, gzipSync(JSON.stringify(initialize())));
    expect(fine.status).toBe(200);
    const bomb = gzipSync(Buffer.alloc(50 * 1024 * 1024, ' '));
    const refused = await send('POST', { authorization, 'content-encoding': 'gzip' }, bomb);
    expect(refused.status).toBe(413);
  });

  it('answers a non-JSON content type with 415 and invalid JSON with a parse error', async () => {
    const authorization = `Bearer ${await stack().tokenFor('oscar')}`;
    expect((await send('POST', ['authorization', authorization, 'content-type', 'text/plain'], 'hello')).status).toBe(415);
    const invalid = await send('POST', { authorization }, '{"jsonrpc":');
    expect(invalid.status).toBe(400);
    expect(JSON.parse(invalid.body)).toMatchObject({ error: { code: -32700 } });
  });

  it('refuses two Authorization headers instead of taking the first', async () => {
    const [oscar, vera] = [await stack().tokenFor('oscar'), await stack().tokenFor('vera')];
    const answer = await send('POST', ['authorization', `Bearer ${oscar}`, 'authorization', `Bearer ${vera}`], JSON.stringify(initialize()));
    expect(answer.status).toBe(401);
    expect(answer.headers['www-authenticate']).toContain('error="invalid_request"');
  });

  it('does not take a token from the query string', async () => {
    const token = await stack().tokenFor('oscar');
    const response = await request(`${stack().mcpUrl}?access_token=${token}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify(initialize()),
    });
    expect(response.statusCode).toBe(401);
    await response.body.dump();
    expect(stack().logs.join('')).not.toContain(token);
  });

  it('names an unknown tool without repeating a huge name', async () => {
    const session = await openSession('oscar');
    const name = 'x'.repeat(100_000);
    const answer = await send(
      'POST',
      { authorization: session.authorization, 'mcp-session-id': session.id, 'mcp-protocol-version': '2025-11-25' },
      JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name, arguments: {} } }),
    );
    expect(answer.body).toContain('not found');
    expect(answer.body.length).toBeLessThan(1_000);
  });
});

describe('sessions', () => {
  it('belong to the person who opened them: another person gets 404 for POST, GET and DELETE, and the owner keeps it', async () => {
    const oscars = await openSession('oscar');
    const vera = `Bearer ${await stack().tokenFor('vera')}`;
    expect((await listTools(oscars, vera)).status).toBe(404);
    expect((await send('GET', { authorization: vera, 'mcp-session-id': oscars.id, 'mcp-protocol-version': '2025-11-25' })).status).toBe(404);
    expect((await send('DELETE', { authorization: vera, 'mcp-session-id': oscars.id, 'mcp-protocol-version': '2025-11-25' })).status).toBe(404);
    expect((await listTools(oscars)).status).toBe(200);
  });

  it('follow the person, not the token string: a fresh token of the same person keeps the session', async () => {
    const session = await openSession('oscar');
    expect((await listTools(session, `Bearer ${await stack().tokenFor('oscar')}`)).status).toBe(200);
  });

  it('are bounded per person: a third session closes the person’s least recently used, and another person is unaffected', async () => {
    const first = await openSession('olivia');
    const second = await openSession('olivia');
    await listTools(second);
    const third = await openSession('olivia');
    expect((await listTools(first)).status).toBe(404);
    expect((await listTools(second)).status).toBe(200);
    expect((await listTools(third)).status).toBe(200);
    expect((await listTools(await openSession('bjorn'))).status).toBe(200);
  });

  it('log a made-up session id without repeating it', async () => {
    const authorization = `Bearer ${await stack().tokenFor('oscar')}`;
    const madeUp = `forged-${'y'.repeat(10_000)}`;
    const answer = await listTools({ id: madeUp, authorization });
    expect(answer.status).toBe(404);
    expect(stack().logs.join('')).not.toContain(madeUp.slice(0, 200));
  });
});
