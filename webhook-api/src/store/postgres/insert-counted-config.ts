// PostgreSQL's counted insert of a configuration: one statement that counts it for its company and
// inserts it, so the company's count row is locked for this statement only, where a transaction of
// several round trips would hold it (and keep the company's other creates waiting) for all of them.
import type { CountedConfigInsert } from '../config-counts.ts';
import { configColumns, configValues, optionValues, toConfig } from '../row-mapping.ts';

const statement = {
  name: 'webhook_insert_counted_config',
  text: `WITH counted AS (
     INSERT INTO company_config_counts (company_id, configs) VALUES ($2::bigint, 1)
     ON CONFLICT (company_id) DO UPDATE SET configs = company_config_counts.configs + 1 WHERE company_config_counts.configs < $13::bigint
     RETURNING configs
   )
   INSERT INTO webhook_configs (id, company_id, name, url, method, delivery_mode, auth_type, auth_payload_encrypted, custom_headers, include_metadata_headers, include_retry_header,
     signing_secret_encrypted, rate_limit_per_second, ordering)
   SELECT $1, $2::bigint, $3, $4, $5, $6, $7, $8, $9, $10::boolean, $11::boolean, $12, $14::integer, $15 FROM counted
   RETURNING ${configColumns}`,
};

/** No row returned means the company holds `limit` configurations already. */
export const insertCountedInOneStatement: CountedConfigInsert = async (driver, c, limit) => {
  const row = await driver.one(statement, [c.id, c.companyId, ...configValues(c), c.signingSecrets.current, limit, ...optionValues(c)]);
  return row ? toConfig(row) : 'limit-reached';
};
