// Schema version 6 on SQLite, 7 on PostgreSQL (the same text): the Idempotency-Key of each ingest
// request that sent one, per ingest caller, with a digest of its points and the answer it got, for
// 24 hours (a row older than that is taken over by the next request with its key, and pruned).
// A row is small and bounded whatever was sent: the key (at most 255 characters), a SHA-256 and two
// counts.
export const ingestKeysTable = `
  CREATE TABLE ingest_keys (
    caller TEXT NOT NULL,
    key TEXT NOT NULL,
    body_hash TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    accepted INTEGER NOT NULL,
    queued INTEGER NOT NULL,
    PRIMARY KEY (caller, key)
  );
  CREATE INDEX ingest_keys_created ON ingest_keys (created_at);
`;
