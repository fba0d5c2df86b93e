// Schema version 9 on SQLite, 10 on PostgreSQL: ordered delivery per device.
//
// - webhook_configs.ordering: None (as before: deliveries go as they come, several at once) or
//   PerDevice: the deliveries of one stream go one at a time, in ingest order.
// - deliveries.stream: the stream a delivery of a PerDevice configuration belongs to (a Realtime
//   one: its device; a Batch one: its gateway and measurement, the batch stream); null otherwise.
// - deliveries.state 'held': a delivery waiting for an earlier one of its stream to be delivered,
//   dropped or failed. A stream has at most one delivery 'queued' (its head: due, in flight or
//   waiting for its retry); the settlement that ends the head makes the next one 'queued', in the
//   same transaction. A held delivery is in no claim's index, so claims are as before.
// - deliveries_stream: the queued and held deliveries of each stream in order, for ingest (is the
//   stream busy?) and the settlement (which is next?): empty while no configuration is ordered.
const schema = (order: string) => `
  ALTER TABLE webhook_configs ADD COLUMN ordering TEXT NOT NULL DEFAULT 'None';
  ALTER TABLE deliveries ADD COLUMN stream TEXT;
  CREATE INDEX deliveries_stream ON deliveries (webhook_config_id, stream${order}) WHERE stream IS NOT NULL AND state IN ('queued', 'held');
`;

/** SQLite's index ends in the rowid, the creation order, by itself. */
export const orderingSqlite = schema('');
export const orderingPostgres = schema(', seq');
