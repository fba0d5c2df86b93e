// Spent request states in PostgreSQL, shared by the gateway's replicas (DATABASE_URL): a state
// answered at one replica is refused at every other. One INSERT per spend, the nonce its primary
// key, so two replicas spending the same state at once cannot both succeed; expired rows are swept.
import type { Logger } from '@platform/tool-sdk';
import { defaultRegistrySchema, openRegistryPool } from '../registry/postgres/registry-schema.ts';
import type { SpentStates } from './spent-states.ts';

export interface PostgresSpentStatesOptions {
  readonly logger: Logger;
  /** The registry's schema, where the table is; mcp_registry by default. */
  readonly schema?: string;
  /** How often expired rows are deleted. Default 10 minutes. */
  readonly sweepMs?: number;
  /** How long a connection or a statement may take. Default 5 000. */
  readonly timeoutMs?: number;
}

/** Connects and creates the table when missing; rejects naming DATABASE_URL (never its value) when it cannot. */
export async function openPostgresSpentStates(connectionString: string, options: PostgresSpentStatesOptions): Promise<SpentStates> {
  const { logger, schema = defaultRegistrySchema, sweepMs = 10 * 60_000, timeoutMs = 5_000 } = options;
  const table = `${schema}.spent_request_states`;
  const pool = await openRegistryPool(connectionString, {
    logger,
    schema,
    timeoutMs,
    max: 2,
    what: 'the spent request states',
    opener: 'openPostgresSpentStates',
  });
  const sweep = setInterval(() => {
    pool.query(`DELETE FROM ${table} WHERE expires_at < now()`).catch((error: unknown) => {
      logger.warn({ err: error }, 'expired request states could not be swept; the next sweep tries again');
    });
  }, sweepMs);
  sweep.unref();
  return {
    async spend(nonce, expiresAt) {
      const inserted = await pool.query(
        `INSERT INTO ${table} (nonce, expires_at) VALUES ($1, to_timestamp($2::double precision / 1000)) ON CONFLICT DO NOTHING`,
        [nonce, expiresAt],
      );
      return inserted.rowCount === 1;
    },
    async close() {
      clearInterval(sweep);
      await pool.end();
    },
  };
}
