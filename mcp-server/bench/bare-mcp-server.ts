// The baselines of the gateway benchmark: a bare MCP SDK server whose `noop` tool runs in-process,
// wired the way the SDK's own examples wire Express: `createMcpExpressApp` (Host and Origin checks,
// JSON body), 2025-11-25 sessions on a NodeStreamableHTTPServerTransport at /legacy, and the
// stateless 2026-07-28 handler at /modern. No caller check, no registry, no gRPC: what is left
// when everything the gateway adds is taken away. Given `noop`, the same server is the minimal
// MCP-to-gRPC proxy: its tool handler makes one grpc-js CallToolStream (the call the gateway makes)
// and answers the result it streams back.
import { randomUUID } from 'node:crypto';
import { createMcpExpressApp } from '@modelcontextprotocol/express';
import { NodeStreamableHTTPServerTransport, toNodeHandler } from '@modelcontextprotocol/node';
import { createMcpHandler, isInitializeRequest, McpServer, type CallToolResult } from '@modelcontextprotocol/server';
import type { Express, Request, Response } from 'express';
import { z } from 'zod';

/** What the gateway answers for the tool service's `noop` ({ ok: true }): the same result, so both sides send the same bytes. */
const noopResult: CallToolResult = { content: [{ type: 'text', text: '{"ok":true}' }], structuredContent: { ok: true } };

export interface BareMcpServer {
  readonly app: Express;
  close(): Promise<void>;
}

/** What the `noop` tool does: answers in-process by default. */
export type NoopHandler = () => CallToolResult | Promise<CallToolResult>;

function serverFactory(noop: NoopHandler): () => McpServer {
  return () => {
    const mcp = new McpServer({ name: 'bare-bench-server', version: '1.0.0' });
    mcp.registerTool(
      'noop',
      { title: 'No-op', description: 'Answers { ok: true }; for the benchmark.', inputSchema: z.strictObject({}), annotations: { readOnlyHint: true } },
      noop,
    );
    return mcp;
  };
}

function sessionNotFound(res: Response): void {
  res.status(404).json({ jsonrpc: '2.0', error: { code: -32001, message: 'Session not found' }, id: null });
}

export function createBareMcpServer(noop: NoopHandler = () => noopResult): BareMcpServer {
  const newServer = serverFactory(noop);
  const app = createMcpExpressApp();
  const modern = toNodeHandler(createMcpHandler(newServer, { legacy: 'reject' }));
  app.post('/modern', async (req, res) => {
    await modern(req, res, req.body);
  });

  const sessions = new Map<string, { server: McpServer; transport: NodeStreamableHTTPServerTransport }>();
  const legacy = async (req: Request, res: Response) => {
    const sessionId = req.headers['mcp-session-id'];
    if (typeof sessionId === 'string') {
      const session = sessions.get(sessionId);
      if (session) await session.transport.handleRequest(req, res, req.body);
      else sessionNotFound(res);
      return;
    }
    if (req.method !== 'POST' || !isInitializeRequest(req.body)) {
      res.status(400).json({ jsonrpc: '2.0', error: { code: -32000, message: 'Bad Request: send initialize first' }, id: null });
      return;
    }
    const server = newServer();
    const transport = new NodeStreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        sessions.set(id, { server, transport });
      },
      onsessionclosed: (id) => {
        sessions.delete(id);
      },
    });
    await server.connect(transport);
    await transport.handleRequest(req, res, req.body);
  };
  app.post('/legacy', legacy);
  app.get('/legacy', legacy);
  app.delete('/legacy', legacy);

  return {
    app,
    async close() {
      const open = [...sessions.values()];
      sessions.clear();
      await Promise.all(open.map(({ server }) => server.close()));
    },
  };
}
