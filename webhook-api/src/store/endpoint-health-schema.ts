// Schema version 4 on SQLite, 5 on PostgreSQL (the same text): a configuration's status and how its
// endpoint has fared lately.
//
// - webhook_configs.status: Active or Disabled; disabled_reason and disabled_at say why and when
//   (ISO 8601 text, as the API shows it). Every configuration is Active to begin with.
// - webhook_configs.failing_since, failed_attempts: the current run of failed attempts (its first
//   attempt's start, epoch ms, and how many), kept by the deliverers and cleared by a delivered one;
//   what disables an endpoint that has failed for WEBHOOK_DISABLE_AFTER.
// - webhook_configs_inactive: the few configurations that are not Active, which every claim passes
//   over (read whole per claim: an index that is empty while every endpoint is healthy).
export const endpointHealthColumns = `
  ALTER TABLE webhook_configs ADD COLUMN status TEXT NOT NULL DEFAULT 'Active';
  ALTER TABLE webhook_configs ADD COLUMN disabled_reason TEXT;
  ALTER TABLE webhook_configs ADD COLUMN disabled_at TEXT;
  ALTER TABLE webhook_configs ADD COLUMN failing_since BIGINT;
  ALTER TABLE webhook_configs ADD COLUMN failed_attempts INTEGER NOT NULL DEFAULT 0;
  CREATE INDEX webhook_configs_inactive ON webhook_configs (id) WHERE status <> 'Active';
`;
