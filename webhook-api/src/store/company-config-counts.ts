// How many configurations each company holds, kept beside them in the same transactions: one row
// per company that is both the count the limit is checked against and, on PostgreSQL, the row
// lock that serializes a company's concurrent creates. O(1) whatever the company holds, where a
// COUNT(*) under a lock would grow with it.

/** The same text on SQLite and PostgreSQL; the counts of rows made before it are taken from them. */
export const companyConfigCountsMigration = `CREATE TABLE company_config_counts (
     company_id BIGINT PRIMARY KEY,
     configs BIGINT NOT NULL
   );
   INSERT INTO company_config_counts (company_id, configs) SELECT company_id, COUNT(*) FROM webhook_configs GROUP BY company_id;`;

/** Counts one more configuration for company $1 unless it holds $2 already; no row returned means the limit is reached. */
export const countOneMoreConfig = `INSERT INTO company_config_counts (company_id, configs) VALUES ($1, 1)
   ON CONFLICT (company_id) DO UPDATE SET configs = company_config_counts.configs + 1 WHERE company_config_counts.configs < $2
   RETURNING configs`;

/** Counts one configuration fewer for company $1. */
export const countOneLessConfig = 'UPDATE company_config_counts SET configs = configs - 1 WHERE company_id = $1';

/**
 * One statement that counts the configuration for company $2 (unless it holds $12 already) and
 * inserts it: the count row is locked for this statement only, where a transaction of several
 * round trips would hold it (and keep the company's other creates waiting) for all of them. For a
 * dialect with data-modifying WITH (PostgreSQL); no row returned means the limit is reached.
 */
export function insertCountedConfig(returning: string): string {
  return `WITH counted AS (
     INSERT INTO company_config_counts (company_id, configs) VALUES ($2::bigint, 1)
     ON CONFLICT (company_id) DO UPDATE SET configs = company_config_counts.configs + 1 WHERE company_config_counts.configs < $12::bigint
     RETURNING configs
   )
   INSERT INTO webhook_configs (id, company_id, name, url, method, delivery_mode, auth_type, auth_payload_encrypted, custom_headers, include_metadata_headers, include_retry_header)
   SELECT $1, $2::bigint, $3, $4, $5, $6, $7, $8, $9, $10::boolean, $11::boolean FROM counted
   RETURNING ${returning}`;
}
