// Schema version 4, PostgreSQL's own (SQLite's schema has no counterpart to change): the delivery
// queue's tables set for the writes each delivery makes, a claim (the lease) and a settlement (the
// state, and a line in the attempt log).
//
// - deliveries keeps a third of each page free: a claim changes no indexed column, so its new row
//   version fits on the same page and is a heap-only tuple, written to no index; with full pages
//   (the default) every claim wrote an entry to each of the table's indexes.
// - The unique index on deliveries.seq goes: nothing needs seq unique (the due index orders by it),
//   and every row version written to the indexes paid for it.
// - An attempt no longer checks its delivery by a foreign key (a lookup and a row lock per line, the
//   largest single cost of a settlement): a settlement writes the line for the delivery it has just
//   updated in the same statement, so the delivery is there. What the key did on delete, a trigger
//   does once per statement: the attempts of deleted deliveries go with them (pruning, a
//   configuration deleted, a batch an unlink emptied).
export const queueStorageTuning = `
  ALTER TABLE deliveries SET (fillfactor = 70);
  ALTER TABLE deliveries DROP CONSTRAINT deliveries_seq_key;
  ALTER TABLE delivery_attempts DROP CONSTRAINT delivery_attempts_delivery_id_fkey;
  CREATE FUNCTION webhook_delete_attempts_of_deliveries() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    DELETE FROM delivery_attempts a USING deleted_deliveries d WHERE a.delivery_id = d.id;
    RETURN NULL;
  END
  $$;
  CREATE TRIGGER deliveries_delete_attempts AFTER DELETE ON deliveries
    REFERENCING OLD TABLE AS deleted_deliveries FOR EACH STATEMENT EXECUTE FUNCTION webhook_delete_attempts_of_deliveries();
`;
