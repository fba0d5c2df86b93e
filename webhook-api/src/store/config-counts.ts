// How many configurations each company holds, kept beside them in the same transactions: one row
// per company that is both the count the limit is checked against and, on PostgreSQL, the row
// lock that serializes a company's concurrent creates. O(1) whatever the company holds, where a
// COUNT(*) under a lock would grow with it.
import type { StoredConfig } from './records.ts';
import { configColumns, configValues, optionValues, toConfig } from './row-mapping.ts';
import type { SqlDriver } from './sql-driver.ts';

/**
 * Counts one more configuration for its company unless the company holds `limit` already, and
 * inserts it; 'limit-reached' when it holds them. Each dialect does this its own way.
 */
export type CountedConfigInsert = (driver: SqlDriver, config: StoredConfig, limit: number) => Promise<StoredConfig | 'limit-reached'>;

/** Counts one more configuration for company $1 unless it holds $2 already; no row returned means the limit is reached. */
const countOneMoreConfig = `INSERT INTO company_config_counts (company_id, configs) VALUES ($1, 1)
   ON CONFLICT (company_id) DO UPDATE SET configs = company_config_counts.configs + 1 WHERE company_config_counts.configs < $2
   RETURNING configs`;

/** Counts one configuration fewer for company $1. */
export const countOneLessConfig = 'UPDATE company_config_counts SET configs = configs - 1 WHERE company_id = $1';

/** The count and the insert as two statements of one transaction: SQLite, in process, where a round trip costs nothing. */
export const insertCountedInTransaction: CountedConfigInsert = (driver, c, limit) =>
  driver.transaction(async (tx) => {
    if (!(await tx.one(countOneMoreConfig, [c.companyId, limit]))) return 'limit-reached' as const;
    const row = await tx.one(
      `INSERT INTO webhook_configs (id, company_id, name, url, method, delivery_mode, auth_type, auth_payload_encrypted, custom_headers, include_metadata_headers, include_retry_header,
         signing_secret_encrypted, rate_limit_per_second, ordering)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14) RETURNING ${configColumns}`,
      [c.id, c.companyId, ...configValues(c), c.signingSecrets.current, ...optionValues(c)],
    );
    if (!row) throw new Error('the insert returned no row');
    return toConfig(row);
  });
