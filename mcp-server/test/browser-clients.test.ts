// Browser-based MCP clients (the Inspector UI's direct mode) on an origin the gateway allows: the
// preflight of /mcp is answered, and a cross-origin request may read Mcp-Session-Id,
// Mcp-Protocol-Version and the 401 challenge. A foreign origin is still 403, with nothing to read.
import { request } from 'undici';
import { describe, expect, it } from 'vitest';
import { stackForTests } from './harness.ts';

const stack = stackForTests({ toolService: false, gatewayEnv: { MCP_ALLOWED_ORIGINS: 'inspector.example' } });

const initialize = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'inspector-ui', version: '1' } },
};

const preflight = (origin: string) =>
  request(stack().mcpUrl, {
    method: 'OPTIONS',
    headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, content-type, mcp-protocol-version' },
  });

const post = (origin: string, token?: string) =>
  request(stack().mcpUrl, {
    method: 'POST',
    headers: {
      origin,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...(token !== undefined && { authorization: `Bearer ${token}` }),
    },
    body: JSON.stringify(initialize),
  });

const listed = (value: string | string[] | undefined) =>
  String(value ?? '')
    .toLowerCase()
    .split(/,\s*/);

describe.each(['http://localhost:6274', 'https://inspector.example'])('a page on the allowed origin %s', (origin) => {
  it('has its preflight of /mcp answered for the methods and headers MCP uses', async () => {
    const answer = await preflight(origin);
    await answer.body.dump();

    expect(answer.statusCode).toBe(204);
    expect(answer.headers['access-control-allow-origin']).toBe(origin);
    expect(listed(answer.headers['access-control-allow-methods'])).toEqual(expect.arrayContaining(['get', 'post', 'delete']));
    expect(listed(answer.headers['access-control-allow-headers'])).toEqual(
      expect.arrayContaining(['authorization', 'content-type', 'mcp-session-id', 'mcp-protocol-version', 'last-event-id']),
    );
    expect(listed(answer.headers.vary)).toContain('origin');
  });

  it('may read the session id and the revision of a cross-origin initialize', async () => {
    const answer = await post(origin, await stack().tokenFor('oscar'));
    await answer.body.dump();

    expect(answer.statusCode).toBe(200);
    expect(answer.headers['access-control-allow-origin']).toBe(origin);
    expect(listed(answer.headers['access-control-expose-headers'])).toEqual(
      expect.arrayContaining(['mcp-session-id', 'mcp-protocol-version', 'www-authenticate']),
    );
    expect(answer.headers['mcp-session-id']).toEqual(expect.any(String));
  });

  it('may read the 401 challenge that starts its sign-in', async () => {
    const answer = await post(origin);
    await answer.body.dump();

    expect(answer.statusCode).toBe(401);
    expect(answer.headers['access-control-allow-origin']).toBe(origin);
    expect(listed(answer.headers['access-control-expose-headers'])).toContain('www-authenticate');
    expect(String(answer.headers['www-authenticate'])).toContain('resource_metadata=');
  });
});

describe('a page on a foreign origin', () => {
  it('is refused 403 for its preflight and its request, with no CORS header to read anything by', async () => {
    for (const answer of [await preflight('http://evil.example'), await post('http://evil.example', await stack().tokenFor('oscar'))]) {
      await answer.body.dump();
      expect(answer.statusCode).toBe(403);
      expect(answer.headers['access-control-allow-origin']).toBeUndefined();
    }
  });
});
