// The MCP endpoint's long-lived streams (2025-11-25 GET streams, 2026-07-28 subscriptions/listen)
// are bounded as sessions are: at most so many per person (opening one more ends their oldest) and
// so many in all (503 past it); and a stream lives no longer than the token that opened it: it ends
// when the token expires, or when a re-check of it at the platform is refused. With a shared
// ledger (replicas on PostgreSQL) the per-person bound holds across replicas: the ledger ends the
// person's oldest stream wherever it is.
import { randomUUID } from 'node:crypto';
import type { Clock, Logger, Timers } from '@platform/tool-sdk';
import { systemClock, systemTimers, tokenExpiry, type CallerCheck } from '@platform/tool-sdk/internal';
import type { Request, Response } from 'express';
import type { StreamLedger } from './stream-ledger.ts';

export interface StreamGuardOptions {
  readonly maxPerCaller: number;
  readonly maxStreams: number;
  /** How often an open stream's token is checked again at the platform (through the cached caller check). */
  readonly recheckMs: number;
  readonly checkCaller: CallerCheck;
  readonly logger: Logger;
  readonly clock?: Clock;
  readonly timers?: Timers;
  /** The replicas' shared count of each person's streams; without it, this gateway counts its own. */
  readonly ledger?: StreamLedger | undefined;
}

export interface StreamGuard {
  /** Takes the stream `res` of the checked caller of `req` into account; false when it was answered (503) instead. */
  admit(req: Request, res: Response, kind: 'get' | 'listen'): boolean;
  /** Open streams of each kind. */
  readonly open: { readonly get: number; readonly listen: number };
  /** Ends every stream. */
  close(): void;
}

interface Stream {
  readonly id: string;
  readonly ownerId: string;
  readonly kind: 'get' | 'listen';
  readonly res: Response;
  readonly authorization: string | undefined;
  readonly expiresAt: number;
  cancelTimer: () => void;
  /** Its record in the ledger, done (or failed); taken out after it. */
  recorded: Promise<void>;
}

/** Node fires a timer set past 2^31 - 1 ms at once; a stream's timer is armed again by then. */
const maxTimerMs = 10 * 60_000;

export function createStreamGuard(options: StreamGuardOptions): StreamGuard {
  const { logger, clock = systemClock, timers = systemTimers } = options;
  const { ledger } = options;
  const byOwner = new Map<string, Set<Stream>>();
  const byId = new Map<string, Stream>();
  let closing = false;
  const count = { get: 0, listen: 0 };
  const ledgerFailed = (error: unknown) => {
    logger.warn({ err: error }, 'the shared ledger of open streams could not be written; the stream is bounded by this replica alone');
  };

  const end = (stream: Stream, why: string) => {
    const own = byOwner.get(stream.ownerId);
    if (!own?.delete(stream)) return;
    if (own.size === 0) byOwner.delete(stream.ownerId);
    byId.delete(stream.id);
    count[stream.kind] -= 1;
    stream.cancelTimer();
    // A stopping server leaves its rows to lapse with their lease: they are its person's oldest, the first to go.
    if (ledger && !closing) {
      void stream.recorded.then(() => ledger.closed(stream.id)).catch(ledgerFailed);
    }
    logger.info({ callerId: stream.ownerId, stream: stream.kind, why }, 'MCP stream ended');
    // Destroyed, not ended: the SDK may still write to it, which a destroyed response drops.
    stream.res.destroy();
  };

  /** Wakes at the token's expiry or the next re-check, whichever comes first. */
  const arm = (stream: Stream) => {
    const wait = Math.max(0, Math.min(stream.expiresAt - clock(), options.recheckMs, maxTimerMs));
    stream.cancelTimer = timers.after(wait, () => {
      if (clock() >= stream.expiresAt) {
        end(stream, 'its token expired');
        return;
      }
      options
        .checkCaller(stream.authorization)
        .then((checked) => {
          if (checked.ok) arm(stream);
          else end(stream, 'its token was refused at a re-check');
        })
        // The platform being down is no reason to cut a person off: look again later.
        .catch(() => {
          arm(stream);
        });
    });
  };

  const watching = ledger
    ?.watch(
      () => [...byId.keys()],
      (ids) => {
        for (const id of ids) {
          const stream = byId.get(id);
          if (stream) end(stream, 'the person opened more streams than one may hold (on any replica)');
        }
      },
    )
    .catch((error: unknown) => {
      ledgerFailed(error);
      return () => Promise.resolve();
    });

  return {
    admit(req, res, kind) {
      const ownerId = req.caller?.id;
      if (ownerId === undefined) throw new Error('a stream needs a checked caller');
      const token = req.auth?.token ?? '';
      const expiresAt = tokenExpiry(token) ?? Number.POSITIVE_INFINITY;
      if (count.get + count.listen >= options.maxStreams) {
        res
          .set('retry-after', '30')
          .status(503)
          .json({ jsonrpc: '2.0', error: { code: -32000, message: 'Too many open streams on this server; try again later.' }, id: null });
        return false;
      }
      let own = byOwner.get(ownerId);
      if (!own) byOwner.set(ownerId, (own = new Set()));
      // One person cannot use up the streams of all: their oldest gives way to their newest.
      while (own.size >= options.maxPerCaller) {
        const [oldest] = own;
        if (!oldest) break;
        end(oldest, 'the person opened more streams than one may hold');
      }
      const stream: Stream = {
        id: randomUUID(),
        ownerId,
        kind,
        res,
        authorization: req.headers.authorization,
        expiresAt,
        cancelTimer: () => undefined,
        recorded: Promise.resolve(),
      };
      own.add(stream);
      byId.set(stream.id, stream);
      count[kind] += 1;
      // The person's oldest past the bound, on any replica, is ended by the one that holds it (watch below).
      if (ledger) stream.recorded = ledger.opened({ id: stream.id, callerId: ownerId, kind: 'stream' }, options.maxPerCaller).catch(ledgerFailed);
      res.once('close', () => {
        end(stream, 'closed');
      });
      arm(stream);
      return true;
    },

    get open() {
      return { get: count.get, listen: count.listen };
    },

    close() {
      closing = true;
      for (const own of [...byOwner.values()]) for (const stream of [...own]) end(stream, 'server stopping');
      void watching?.then((stop) => stop()).catch(() => undefined);
    },
  };
}
