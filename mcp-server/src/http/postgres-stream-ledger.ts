// The replicas' shared ledger of open MCP streams and sessions in PostgreSQL (the registry's schema).
// Opening one inserts its row and, under a lock of the person's, deletes their oldest rows of that
// kind past the bound and NOTIFYs their ids; the replica holding one ends it. Each replica renews the lease of the
// rows it holds, which also ends any of its streams whose row is gone (a notification missed), and a
// replica that died leaves rows that lapse with their lease.
import type { Logger } from '@platform/tool-sdk';
import { listenForChanges } from '../registry/postgres/registry-notifications.ts';
import { defaultRegistrySchema, openRegistryPool } from '../registry/postgres/registry-schema.ts';
import type { StreamLedger } from './stream-ledger.ts';

export interface PostgresStreamLedgerOptions {
  readonly logger: Logger;
  /** The registry's schema; mcp_registry by default (tests take one each). */
  readonly schema?: string;
  /** How long a row lives without its replica renewing it. Default 60 000; renewed every third of it. */
  readonly leaseMs?: number;
  /** How long a connection or a statement may take. Default 5 000. */
  readonly timeoutMs?: number;
}

/** Connects and creates the table when missing; rejects naming DATABASE_URL (never its value) when it cannot. */
export async function openPostgresStreamLedger(connectionString: string, options: PostgresStreamLedgerOptions): Promise<StreamLedger> {
  const { logger, schema = defaultRegistrySchema, leaseMs = 60_000, timeoutMs = 5_000 } = options;
  const table = `${schema}.open_streams`;
  const channel = `${schema}_streams`;
  const lease = `${String(leaseMs / 1000)} seconds`;
  const pool = await openRegistryPool(connectionString, { logger, schema, timeoutMs, max: 4, what: 'the open streams', opener: 'openPostgresStreamLedger' });

  let closing: Promise<void> | undefined;
  return {
    async opened({ id, callerId, kind }, maxPerCaller) {
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        // One opening per person at a time, at every replica: the count and the evictions agree.
        await client.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [`${table}:${kind}:${callerId}`]);
        await client.query(`DELETE FROM ${table} WHERE kind = $1 AND caller_id = $2 AND lease_until <= now()`, [kind, callerId]);
        await client.query(`INSERT INTO ${table} (stream_id, kind, caller_id, lease_until) VALUES ($1, $2, $3, now() + $4::interval)`, [
          id,
          kind,
          callerId,
          lease,
        ]);
        const { rows } = await client.query<{ stream_id: string }>(
          `WITH ranked AS (
             SELECT stream_id, row_number() OVER (ORDER BY opened_at DESC, stream_id DESC) AS place FROM ${table} WHERE kind = $1 AND caller_id = $2
           )
           DELETE FROM ${table} AS s USING ranked WHERE s.stream_id = ranked.stream_id AND ranked.place > $3 RETURNING s.stream_id`,
          [kind, callerId, maxPerCaller],
        );
        if (rows.length > 0) await client.query('SELECT pg_notify($1, $2)', [channel, rows.map((row) => row.stream_id).join(',')]);
        await client.query('COMMIT');
      } catch (error) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw error;
      } finally {
        client.release();
      }
    },

    async closed(id) {
      await pool.query(`DELETE FROM ${table} WHERE stream_id = $1`, [id]);
    },

    async watch(held, end) {
      const renew = async () => {
        const ids = held();
        if (ids.length === 0) return;
        const { rows } = await pool.query<{ stream_id: string }>(
          `UPDATE ${table} SET lease_until = now() + $2::interval WHERE stream_id = ANY($1::text[]) RETURNING stream_id`,
          [ids, lease],
        );
        // A row gone while its stream is open here: ended elsewhere's behalf, and the notification missed.
        const kept = new Set(rows.map((row) => row.stream_id));
        const gone = ids.filter((id) => !kept.has(id));
        if (gone.length > 0) end(gone);
      };
      const renewing = setInterval(() => {
        renew().catch((error: unknown) => {
          logger.warn({ err: error }, 'the leases of this replica’s open streams could not be renewed; trying again');
        });
      }, leaseMs / 3);
      renewing.unref();
      const stop = await listenForChanges(
        {
          connectionString,
          channel,
          connectionTimeoutMs: timeoutMs,
          reconcileMs: leaseMs,
          onConnectionLost: (error) => {
            logger.warn({ err: error }, 'the connection that hears of streams ended elsewhere was lost; connecting again');
          },
        },
        (payload) => {
          if (payload) end(payload.split(','));
        },
      );
      return async () => {
        clearInterval(renewing);
        await stop();
      };
    },

    close() {
      closing ??= pool.end();
      return closing;
    },
  };
}
