// The 2025-11-25 revision's sessions: `initialize` opens one (its own MCP server instance and
// transport), `Mcp-Session-Id` names it on every later request, `DELETE` ends it, and the GET
// stream carries `notifications/tools/list_changed`. A session belongs to the person who opened
// it: another caller naming its id is told it does not exist. Idle sessions are closed, a session
// ends when the newest token used on it expires, and the number open at once is bounded; its GET
// stream is bounded and ended by the stream guard. With a shared ledger (replicas on PostgreSQL)
// the per-person bound holds across replicas: the person's oldest session ends wherever it lives.
import { randomUUID } from 'node:crypto';
import { NodeStreamableHTTPServerTransport } from '@modelcontextprotocol/node';
import { isInitializeRequest, type McpServer } from '@modelcontextprotocol/server';
import type { Clock, Logger, Timers } from '@platform/tool-sdk';
import { systemClock, systemTimers, tokenExpiry } from '@platform/tool-sdk/internal';
import type { Request, Response } from 'express';
import type { StreamGuard } from './stream-guard.ts';
import type { StreamLedger } from './stream-ledger.ts';

export interface LegacySessionsOptions {
  /** A new MCP server instance for a new session. */
  readonly newServer: () => McpServer;
  readonly maxSessions: number;
  /** Sessions one person may hold; opening one more closes their least recently used. Default 100. */
  readonly maxSessionsPerCaller?: number;
  /** A session without a request for this long is closed. */
  readonly idleMs: number;
  readonly logger: Logger;
  /** Bounds the GET streams per person and in all, and ends each with its token. */
  readonly streams: StreamGuard;
  readonly clock?: Clock;
  /** Arms each session's end at its token's expiry; tests pass their manual clock. */
  readonly timers?: Timers;
  /** The replicas' shared count of each person's sessions; without it, this gateway counts its own. */
  readonly ledger?: StreamLedger | undefined;
}

export interface LegacySessions {
  /** Serves a 2025-era POST, GET or DELETE of a checked caller (`req.caller`). */
  handle(req: Request, res: Response): Promise<void>;
  /** Sends `notifications/tools/list_changed` on every open session. */
  toolsChanged(): void;
  readonly size: number;
  close(): Promise<void>;
}

interface Session {
  readonly id: string;
  readonly ownerId: string;
  readonly server: McpServer;
  readonly transport: NodeStreamableHTTPServerTransport;
  lastUsed: number;
  /** When the newest token used on it expires (epoch ms); Infinity for a token without a readable expiry. */
  expiresAt: number;
  cancelExpiry: () => void;
  /** Its record in the ledger, done (or failed); taken out after it. */
  recorded: Promise<void>;
}

/** Node fires a timer set past 2^31 - 1 ms at once; a session's is armed again by then. */
const maxTimerMs = 10 * 60_000;

function jsonRpcError(res: Response, status: number, code: number, message: string): void {
  res.status(status).json({ jsonrpc: '2.0', error: { code, message }, id: null });
}

export function createLegacySessions(options: LegacySessionsOptions): LegacySessions {
  const { logger, clock = systemClock, timers = systemTimers, ledger } = options;
  const sessions = new Map<string, Session>();
  /** Sessions being opened (initialize in flight) count against the bound too. */
  let opening = 0;
  let closing = false;
  const ledgerFailed = (error: unknown) => {
    logger.warn({ err: error }, 'the shared ledger of open sessions could not be written; the session is bounded by this replica alone');
  };

  const end = async (session: Session, why: string) => {
    if (!sessions.delete(session.id)) return;
    session.cancelExpiry();
    // A stopping server leaves its rows to lapse with their lease: they are its person's oldest, the first to go.
    if (ledger && !closing) void session.recorded.then(() => ledger.closed(session.id)).catch(ledgerFailed);
    logger.info({ sessionId: session.id, callerId: session.ownerId, why }, 'MCP session closed');
    await session.server.close().catch((error: unknown) => {
      logger.warn({ err: error }, 'an MCP session did not close cleanly');
    });
  };

  const sweep = setInterval(
    () => {
      const idleSince = clock() - options.idleMs;
      for (const session of sessions.values()) if (session.lastUsed < idleSince) void end(session, 'idle');
    },
    Math.min(60_000, Math.max(1_000, options.idleMs / 2)),
  );
  sweep.unref();

  const maxPerCaller = options.maxSessionsPerCaller ?? 100;
  const watching = ledger
    ?.watch(
      () => [...sessions.keys()],
      (ids) => {
        for (const id of ids) {
          const session = sessions.get(id);
          if (session) void end(session, 'the person opened more sessions than one may hold (on any replica)');
        }
      },
    )
    .catch((error: unknown) => {
      ledgerFailed(error);
      return () => Promise.resolve();
    });

  /** A session lives no longer than the newest token used on it: a request with a later one extends it. */
  const extend = (session: Session, req: Request) => {
    const expiresAt = tokenExpiry(req.auth?.token ?? '') ?? Number.POSITIVE_INFINITY;
    if (expiresAt <= session.expiresAt && session.expiresAt !== 0) return;
    session.expiresAt = expiresAt;
    session.cancelExpiry();
    if (expiresAt === Number.POSITIVE_INFINITY) return;
    const arm = () => {
      session.cancelExpiry = timers.after(Math.max(0, Math.min(session.expiresAt - clock(), maxTimerMs)), () => {
        if (clock() >= session.expiresAt) void end(session, 'its token expired');
        else arm();
      });
    };
    arm();
  };

  /** One person cannot use up the sessions of all: their oldest gives way to their newest. */
  const makeRoomFor = async (ownerId: string) => {
    const own = [...sessions.values()].filter((session) => session.ownerId === ownerId);
    if (own.length < maxPerCaller) return;
    const oldest = own.reduce((a, b) => (b.lastUsed < a.lastUsed ? b : a));
    await end(oldest, 'the person opened more sessions than one may hold');
  };

  const open = async (req: Request, res: Response, ownerId: string) => {
    await makeRoomFor(ownerId);
    if (sessions.size + opening >= options.maxSessions) {
      res.set('retry-after', '30');
      jsonRpcError(res, 503, -32000, 'Too many open sessions on this server; try again later.');
      return;
    }
    opening += 1;
    const server = options.newServer();
    let session: Session | undefined;
    const transport = new NodeStreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      // Each POST is answered as an SSE stream: a tool call's progress and log messages, and the
      // questions it puts to the client (elicitation, sampling), travel on it before its result.
      onsessioninitialized: (id) => {
        session = { id, ownerId, server, transport, lastUsed: clock(), expiresAt: 0, cancelExpiry: () => undefined, recorded: Promise.resolve() };
        sessions.set(id, session);
        // The person's oldest session past the bound, on any replica, is closed by the one that holds it (watch below).
        if (ledger) session.recorded = ledger.opened({ id, callerId: ownerId, kind: 'session' }, maxPerCaller).catch(ledgerFailed);
        extend(session, req);
        logger.info({ sessionId: id, callerId: ownerId }, 'MCP session opened');
      },
      onsessionclosed: (id) => {
        const closed = sessions.get(id);
        if (closed) void end(closed, 'closed by the client');
      },
    });
    try {
      await server.connect(transport);
      await transport.handleRequest(req, res, req.body);
    } finally {
      opening -= 1;
      // An initialize that failed (an unsupported version, say) opened nothing to keep.
      if (!session) await server.close().catch(() => undefined);
    }
  };

  return {
    async handle(req, res) {
      const ownerId = req.caller?.id;
      if (ownerId === undefined) throw new Error('legacy sessions need a checked caller');
      const sessionId = req.headers['mcp-session-id'];
      if (typeof sessionId === 'string' && sessionId !== '') {
        const session = sessions.get(sessionId);
        // Another person's session is answered exactly like one that does not exist.
        if (!session || session.ownerId !== ownerId) {
          jsonRpcError(res, 404, -32001, 'Session not found');
          return;
        }
        session.lastUsed = clock();
        extend(session, req);
        if (req.method === 'GET' && !options.streams.admit(req, res, 'get')) return;
        await session.transport.handleRequest(req, res, req.body);
        return;
      }
      if (req.method === 'POST' && isInitializeRequest(req.body)) {
        await open(req, res, ownerId);
        return;
      }
      jsonRpcError(res, 400, -32000, 'Bad Request: send initialize first, then the Mcp-Session-Id header it returns');
    },

    toolsChanged() {
      for (const session of sessions.values()) {
        void session.server.server.sendToolListChanged().catch((error: unknown) => {
          logger.debug({ err: error, sessionId: session.id }, 'list_changed not delivered');
        });
      }
    },

    get size() {
      return sessions.size;
    },

    async close() {
      closing = true;
      clearInterval(sweep);
      await Promise.all([...sessions.values()].map((session) => end(session, 'server stopping')));
      await (
        await watching
      )?.();
    },
  };
}
