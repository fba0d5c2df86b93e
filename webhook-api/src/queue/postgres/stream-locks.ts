// PostgreSQL's stream locks: a transaction-long advisory lock per stream, taken in one order, so
// ingest, the settlement that ends a stream's head and a stream's repair take turns on it.
import { distinctStreams, streamKey, type StreamLock } from '../streams.ts';

/** The locks of the streams whose keys are the JSON array parameter `keys`, in its order. */
export const streamLocksQuery = (keys: string) => `SELECT pg_advisory_xact_lock(hashtextextended('webhook stream ' || x.k, 0))
     FROM (SELECT k FROM json_array_elements_text(${keys}::json) WITH ORDINALITY AS a (k, n) ORDER BY n) x`;

const statement = { name: 'webhook_stream_locks', text: streamLocksQuery('$1') };

export const lockStreams: StreamLock = async (tx, streams) => {
  if (streams.length === 0) return;
  await tx.all(statement, [JSON.stringify(distinctStreams(streams).map(streamKey))]);
};
