// Schema version 8 on SQLite, 9 on PostgreSQL: a configuration's rate limit, shared by every
// deliverer through its row.
//
// - webhook_configs.rate_limit_per_second: at most this many requests a second to the endpoint, all
//   deliverers together (null: no limit).
// - webhook_configs.rate_next_slot: the next free send time (epoch ms, fractional): each deliverer
//   reserves the slots of what it claimed by moving it on under the row's lock, and sends each at
//   its slot, so requests are spaced 1/rate apart whoever sends them.
// - webhook_configs.paused_until: the endpoint answered 429; nothing is claimed for it until then
//   (epoch ms), whatever its rate. Indexed where set, so claims pass over the paused few cheaply.
const columns = (real: string) => `
  ALTER TABLE webhook_configs ADD COLUMN rate_limit_per_second INTEGER;
  ALTER TABLE webhook_configs ADD COLUMN rate_next_slot ${real};
  ALTER TABLE webhook_configs ADD COLUMN paused_until BIGINT;
  CREATE INDEX webhook_configs_paused ON webhook_configs (paused_until) WHERE paused_until IS NOT NULL;
`;

export const rateLimitSqlite = columns('REAL');
export const rateLimitPostgres = columns('DOUBLE PRECISION');
