// A small MCP server protected by the dev platform, for signing real MCP clients in through the
// platform without the whole stack: it serves its protected resource metadata (RFC 9728) naming the
// platform, answers 401 with the challenge that points there, checks a bearer at the platform's
// GET /api/me (which must say the token was issued for this server), and serves one tool, whoami,
// on the official MCP server SDK (both revisions: 2026-07-28, and 2025 clients statelessly).
import { toNodeHandler } from '@modelcontextprotocol/node';
import { createMcpHandler, McpServer } from '@modelcontextprotocol/server';
import { listen, type Listening } from '@platform/tool-sdk/testing';

export interface ProtectedMcpServer extends Listening {
  /** The MCP endpoint, `<origin>/mcp`: the resource its tokens must be issued for. */
  readonly mcpUrl: string;
}

interface MeAnswer {
  readonly id: string;
  readonly audience: readonly string[];
}

/**
 * An MCP server at a free loopback port whose tokens come from `issuer()`: a dev platform that
 * lists its URL among its resources, so started after it (hence read when a request comes).
 */
export async function startProtectedMcpServer(issuer: () => string): Promise<ProtectedMcpServer> {
  let mcpUrl = '';
  const mcp = toNodeHandler(
    createMcpHandler(() => {
      const server = new McpServer({ name: 'cimd-test-server', version: '1.0.0' });
      server.registerTool('whoami', { description: 'Who the caller is, and through which client.' }, (ctx) => {
        const auth = ctx.http?.authInfo;
        return { content: [{ type: 'text', text: JSON.stringify({ userId: auth?.extra?.userId, clientId: auth?.clientId }) }] };
      });
      return server;
    }),
  );
  const listening = await listen((req, res) => {
    const origin = mcpUrl.slice(0, -'/mcp'.length);
    const path = new URL(req.url ?? '/', origin).pathname;
    if (req.method === 'GET' && path === '/.well-known/oauth-protected-resource/mcp') {
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ resource: mcpUrl, authorization_servers: [issuer()], scopes_supported: ['api'] }));
      return;
    }
    if (path !== '/mcp') {
      res.writeHead(404).end();
      return;
    }
    const challenge = () =>
      res
        .writeHead(401, {
          'www-authenticate': `Bearer resource_metadata="${origin}/.well-known/oauth-protected-resource/mcp"`,
          'content-type': 'application/json',
        })
        .end('{"error":"invalid_token"}');
    const token = /^Bearer (\S+)$/.exec(req.headers.authorization ?? '')?.[1];
    if (token === undefined) {
      challenge();
      return;
    }
    void (async () => {
      const answer = await fetch(`${issuer()}/api/me`, { headers: { authorization: `Bearer ${token}` } });
      const me = answer.ok ? ((await answer.json()) as MeAnswer) : undefined;
      if (!me?.audience.includes(mcpUrl)) {
        challenge();
        return;
      }
      const claims = JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString()) as { client_id?: string };
      Object.assign(req, { auth: { token, clientId: claims.client_id ?? '', scopes: ['api'], extra: { userId: me.id } } });
      await mcp(req, res);
    })().catch(() => res.destroy());
  });
  mcpUrl = `${listening.url}/mcp`;
  return { ...listening, mcpUrl };
}
