// The gateway as an OAuth resource server (the MCP authorization specification): RFC 9728
// metadata at both paths, 401 with the challenge for every refused token, 503 when the platform
// cannot check one, and DNS rebinding protection.
import { request } from 'undici';
import { describe, expect, it } from 'vitest';
import { stackForTests } from './harness.ts';

const stack = stackForTests({ toolService: false });

const initialize = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'curl', version: '1' } },
};

async function post(authorization: string | undefined, headers: Record<string, string> = {}) {
  return fetch(stack().mcpUrl, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...(authorization !== undefined && { authorization }),
      ...headers,
    },
    body: JSON.stringify(initialize),
  });
}

describe('protected-resource metadata', () => {
  it.each(['/.well-known/oauth-protected-resource/mcp', '/.well-known/oauth-protected-resource'])('is served at %s', async (path) => {
    const response = await fetch(new URL(path, stack().mcpUrl));
    expect(response.status).toBe(200);
    const document = (await response.json()) as Record<string, unknown>;
    expect(typeof document.resource_name).toBe('string');
    expect({ ...document, resource_name: undefined }).toEqual({
      resource: stack().mcpUrl,
      authorization_servers: [stack().issuer],
      scopes_supported: ['api'],
      bearer_methods_supported: ['header'],
      resource_name: undefined,
    });
  });
});

describe('who may call', () => {
  const metadataUrl = () => new URL('/.well-known/oauth-protected-resource/mcp', stack().mcpUrl).href;

  it('challenges a request without a token, pointing at the metadata', async () => {
    const response = await post(undefined);
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toBe(`Bearer resource_metadata="${metadataUrl()}", scope="api"`);
  });

  it.each([
    ['a malformed header', 'Bearer'],
    ['another scheme', 'Basic b3NjYXI6cGFzc3dvcmQ='],
  ])('challenges %s', async (_what, authorization) => {
    const response = await post(authorization);
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toContain(`resource_metadata="${metadataUrl()}"`);
  });

  it('refuses a token issued for another audience (the platform API) with invalid_token', async () => {
    const token = await stack().tokenFor('oscar', { resource: stack().issuer });
    const response = await post(`Bearer ${token}`);
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toMatch(/^Bearer error="invalid_token", error_description="the token was not issued for this service"/);
  });

  it('refuses an expired token and a token it does not know', async () => {
    const expired = await stack().tokenFor('oscar', { expired: true });
    for (const token of [expired, 'not-a-token']) {
      const response = await post(`Bearer ${token}`);
      expect(response.status).toBe(401);
      expect(response.headers.get('www-authenticate')).toContain('error="invalid_token"');
    }
  });

  it('admits the person’s token for this server', async () => {
    const response = await post(`Bearer ${await stack().tokenFor('oscar')}`);
    expect(response.status).toBe(200);
    expect(response.headers.get('mcp-session-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('answers 503, never 401, when the platform cannot check the token', async () => {
    const token = await stack().tokenFor('vera');
    stack().proxy.failing = true;
    try {
      const response = await post(`Bearer ${token}`);
      expect(response.status).toBe(503);
      expect(response.headers.get('www-authenticate')).toBeNull();
      expect(await response.json()).toMatchObject({ error: 'temporarily_unavailable' });
    } finally {
      stack().proxy.failing = false;
    }
  });
});

describe('DNS rebinding protection', () => {
  it('refuses a Host this server does not answer to, before checking any token', async () => {
    // fetch will not send another Host; undici's request will, as a rebinding browser's would.
    const response = await request(stack().mcpUrl, {
      method: 'POST',
      headers: { host: 'evil.example.com', 'content-type': 'application/json' },
      body: JSON.stringify(initialize),
    });
    expect(response.statusCode).toBe(403);
    await response.body.dump();
  });

  it('refuses a browser Origin that is not its own', async () => {
    const response = await post(`Bearer ${await stack().tokenFor('oscar')}`, { origin: 'https://evil.example.com' });
    expect(response.status).toBe(403);
  });
});
