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
