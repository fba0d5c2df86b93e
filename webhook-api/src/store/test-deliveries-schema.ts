// Schema version 5 on SQLite, 6 on PostgreSQL: a delivery made by POST /v2/webhooks/{id}/test is
// marked as a test (deliveries.test), so the attempt log shows it apart and it is never resent or
// recovered. A test delivery is one attempt, settled as it is recorded, with no points of its own.
export const testDeliveriesSqlite = 'ALTER TABLE deliveries ADD COLUMN test INTEGER NOT NULL DEFAULT 0';
export const testDeliveriesPostgres = 'ALTER TABLE deliveries ADD COLUMN test BOOLEAN NOT NULL DEFAULT false';
