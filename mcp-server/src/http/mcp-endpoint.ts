// The one MCP endpoint, both revisions: a request carrying the 2026-07-28 per-request envelope goes
// to the stateless handler (server/discover, subscriptions/listen), any other to the 2025-11-25
// sessions; the SDK's own classifier decides, so the two never disagree. Every request is checked
// for its caller first, before its body is read.
import { hostHeaderValidation, originValidation } from '@modelcontextprotocol/express';
import { toNodeHandler } from '@modelcontextprotocol/node';
import { classifyInboundRequest, isJsonContentType, type McpHttpHandler } from '@modelcontextprotocol/server';
import type { Logger } from '@platform/tool-sdk';
import { nestsDeeperThan } from '@platform/tool-sdk/internal';
import express, { Router, type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import type { LegacySessions } from './legacy-sessions.ts';
import type { StreamGuard } from './stream-guard.ts';

export interface McpEndpointOptions {
  /** The endpoint's path, such as /mcp. */
  readonly path: string;
  readonly requireCaller: RequestHandler;
  readonly modern: McpHttpHandler;
  readonly legacy: LegacySessions;
  /** Bounds the subscriptions/listen streams per person and in all, and ends each with its token. */
  readonly streams: StreamGuard;
  /** Largest JSON-RPC body accepted, in bytes. */
  readonly maxBodyBytes: number;
  readonly logger: Logger;
}

function jsonRpcError(res: Response, status: number, code: number, message: string): void {
  res.status(status).json({ jsonrpc: '2.0', error: { code, message }, id: null });
}

/** Deeper than any tool's arguments may be (the SDK takes 64 levels) plus the JSON-RPC envelope. */
const maxBodyDepth = 100;

/** A session id as the log may carry it: the ids this server makes are UUIDs; anything else is not repeated. */
function sessionIdForLog(value: string | string[] | undefined): string | undefined {
  if (value === undefined) return undefined;
  return typeof value === 'string' && /^[0-9a-f-]{36}$/.test(value) ? value : '[not a session id of this server]';
}

const headerOf = (req: Request, name: string) => {
  const value = req.headers[name];
  return typeof value === 'string' ? value : undefined;
};

/** The revision whose MCP-Protocol-Version header marks a request the stateless handler answers. */
const modernRevision = '2026-07-28';

/**
 * A single message that is no response (a response is what a `result` or an `error` makes one):
 * under a header naming the 2026-07-28 revision, the SDK's classifier never routes it to the
 * sessions. It is a 2026-07-28 message, or a mismatch or malformed body the stateless handler
 * answers (its own classification of every request is the one that counts).
 */
function isModernUnderItsHeader(req: Request): boolean {
  const body = req.body as unknown;
  return (
    req.headers['mcp-protocol-version'] === modernRevision &&
    body !== null &&
    typeof body === 'object' &&
    !Array.isArray(body) &&
    !('result' in body) &&
    !('error' in body)
  );
}

/**
 * Whether a parsed POST belongs to the 2025-11-25 sessions: the SDK's own classifier, the step
 * `isLegacyRequest` runs, fed the body Express already parsed and the three headers it reads,
 * without building a web Request first (that copy cost more than the rest of the routing). A
 * 2026-07-28 request under its own header is told apart without it: the classifier checks the body
 * against several JSON-RPC schemas (about 10 µs, twice a request with the handler's own), and for
 * those it could only answer "not legacy" (the tests hold the two to the same answers).
 */
export function isLegacyPost(req: Request): boolean {
  if (req.body === undefined) return true;
  if (isModernUnderItsHeader(req)) return false;
  const outcome = classifyInboundRequest({
    httpMethod: 'POST',
    protocolVersionHeader: headerOf(req, 'mcp-protocol-version'),
    mcpMethodHeader: headerOf(req, 'mcp-method'),
    mcpNameHeader: headerOf(req, 'mcp-name'),
    body: req.body as unknown,
  });
  return outcome.kind === 'legacy';
}

/** Whether a POST opens a 2026-07-28 subscriptions/listen stream (one request, that method). */
function isListen(body: unknown): boolean {
  return (body as { method?: unknown } | null)?.method === 'subscriptions/listen';
}

/** Which MCP method(s) a POST carries, for the log line: never the params. */
function methodsOf(body: unknown): string | undefined {
  const messages = Array.isArray(body) ? body : [body];
  const names = messages.map((message) => (message as { method?: unknown } | null)?.method).filter((name) => typeof name === 'string');
  return names.length > 0 ? names.join(',').slice(0, 200) : undefined;
}

export function createMcpEndpoint(options: McpEndpointOptions): Router {
  const { path, modern, legacy, logger } = options;
  const modernNode = toNodeHandler(modern, {
    onerror: (error) => {
      logger.error({ err: error }, 'the MCP handler failed');
    },
  });
  const parseJson = express.json({ limit: options.maxBodyBytes, type: () => true });
  const router = Router();

  /** One line per MCP request: who, what, which revision, how it ended, how long it took; nothing kept for a line not written. */
  const logged = (era: 'legacy' | 'modern' | undefined, req: Request, res: Response) => {
    if (!logger.isLevelEnabled('info')) return;
    const started = performance.now();
    res.once('close', () => {
      logger.info(
        {
          reqId: req.id,
          callerId: req.caller?.id,
          httpMethod: req.method,
          mcpMethod: req.method === 'POST' ? methodsOf(req.body) : req.method === 'GET' ? 'stream' : 'end session',
          era,
          sessionId: sessionIdForLog(req.headers['mcp-session-id']),
          status: res.statusCode,
          durationMs: Math.round(performance.now() - started),
        },
        'mcp request',
      );
    });
  };

  const requireJson = (req: Request, res: Response, next: NextFunction) => {
    if (!isJsonContentType(req.headers['content-type'] ?? null)) {
      jsonRpcError(res, 415, -32000, 'Unsupported Media Type: Content-Type must be application/json');
      return;
    }
    next();
  };

  router.post(path, options.requireCaller, requireJson, parseJson, async (req, res) => {
    // Measured without recursion, so a hostile body cannot exhaust the stack.
    if (nestsDeeperThan(req.body, maxBodyDepth)) {
      logged(undefined, req, res);
      jsonRpcError(res, 400, -32600, `Invalid Request: the body nests deeper than ${maxBodyDepth} levels`);
      return;
    }
    const legacyRequest = isLegacyPost(req);
    logged(legacyRequest ? 'legacy' : 'modern', req, res);
    if (legacyRequest) await legacy.handle(req, res);
    else if (isListen(req.body) && !options.streams.admit(req, res, 'listen')) return;
    else await modernNode(req, res, req.body);
  });
  // GET (the notification stream) and DELETE (end of session) exist in the 2025-11-25 revision only.
  router.get(path, options.requireCaller, async (req, res) => {
    logged('legacy', req, res);
    await legacy.handle(req, res);
  });
  router.delete(path, options.requireCaller, async (req, res) => {
    logged('legacy', req, res);
    await legacy.handle(req, res);
  });
  router.all(path, (_req, res) => {
    res.set('allow', 'GET, POST, DELETE, OPTIONS');
    jsonRpcError(res, 405, -32000, 'Method not allowed.');
  });
  return router;
}

/** Answers a body the JSON parser refused as JSON-RPC does: parse error or too large, never a 500. */
export function answerBodyErrors(error: unknown, _req: Request, res: Response, next: NextFunction): void {
  const type = (error as { type?: unknown } | null)?.type;
  if (type === 'entity.parse.failed') jsonRpcError(res, 400, -32700, 'Parse error: the body is not valid JSON');
  else if (type === 'entity.too.large') jsonRpcError(res, 413, -32600, 'The request body is too large');
  else if (typeof type === 'string' && type.startsWith('encoding.')) jsonRpcError(res, 415, -32600, 'Unsupported body encoding');
  else if (type === 'charset.unsupported') jsonRpcError(res, 415, -32600, 'Unsupported charset: use UTF-8');
  else if (clientFault(error)) jsonRpcError(res, (error as { status: number }).status, -32600, 'The request body could not be read');
  else next(error);
}

/** An error the body parser marked as the client's (a 4xx status), such as a body that does not inflate. */
function clientFault(error: unknown): boolean {
  const status = (error as { status?: unknown } | null)?.status;
  return typeof status === 'number' && status >= 400 && status < 500;
}

/** DNS rebinding protection: the SDK's Host and Origin checks, against the names this server answers to. */
export function dnsRebindingProtection(allowedHosts: readonly string[], allowedOrigins: readonly string[]): RequestHandler[] {
  return [hostHeaderValidation([...allowedHosts]), originValidation([...allowedOrigins])];
}
