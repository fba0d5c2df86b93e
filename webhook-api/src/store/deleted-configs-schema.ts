// Schema version 10 on SQLite, 11 on PostgreSQL: a deleted configuration keeps its attempt log.
//
// - webhook_configs.deleted_at: when it was deleted (epoch ms); null while it exists. A deleted
//   configuration is gone for every read and write but the attempt log's: its links and scopes
//   are deleted, its credentials and signing secrets cleared, what was still queued failed with a
//   line saying why, and its row kept (the deliveries refer to it) until retention has pruned its
//   last delivery, when the row goes too.
// - webhook_configs_deleted: the deleted ones, for that pruning.
export const deletedConfigsSchema = `
  ALTER TABLE webhook_configs ADD COLUMN deleted_at BIGINT;
  CREATE INDEX webhook_configs_deleted ON webhook_configs (deleted_at) WHERE deleted_at IS NOT NULL;
`;
