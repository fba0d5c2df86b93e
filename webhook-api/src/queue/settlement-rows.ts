// A settlement as the row both dialects write: the delivery's next state (a retry stays queued) and
// the attempt's line in the log, its text made storable (an endpoint may answer anything).
import type { Settlement } from './delivery-queue.ts';
import { storableText } from '@platform/tool-sdk/internal';

export interface SettlementRow {
  readonly id: string;
  readonly state: 'queued' | 'delivered' | 'dropped' | 'failed';
  readonly next: number | null;
  readonly attempt: number;
  readonly outcome: Settlement['outcome'];
  readonly status: number | null;
  readonly error: string | null;
  readonly body: string;
  readonly started: number;
  readonly duration: number;
  readonly points: number;
}

export const settlementRow = (s: Settlement): SettlementRow => ({
  id: s.id,
  state: s.outcome === 'retrying' ? 'queued' : s.outcome,
  next: s.nextAttemptAt ?? null,
  attempt: s.attempt,
  outcome: s.outcome,
  status: s.status,
  error: s.error === null ? null : storableText(s.error),
  body: storableText(s.responseBody),
  started: s.startedAt,
  duration: s.durationMs,
  points: s.pointCount,
});

/** Whether `owner` leases the delivery row `table` itself: a queued one (not a logged point, which its endpoint's cursor holds). */
export const leasedBy = (table: string, owner: string) => `(${table}.state = 'queued' AND ${table}.lease_owner = ${owner})`;

/**
 * Whether `owner` still holds the delivery row `table`: a queued one by its own lease, a logged one
 * (endpoint-logs.ts) by its endpoint's cursor. What a settlement's compare-and-swap checks
 * (PostgreSQL's always; SQLite's wherever its update at an endpoint whose cursor `owner` holds does
 * not apply or changes nothing: sqlite/settle.ts).
 */
// The cursor looked up by its key (EXISTS), not the holder's cursors listed (IN): SQLite built that
// list for every row it settled (5 µs of a 25 µs update).
export const heldBy = (table: string, owner: string) =>
  `(${leasedBy(table, owner)} OR (${table}.state = 'logged' AND EXISTS
    (SELECT 1 FROM endpoint_cursors k WHERE k.webhook_config_id = ${table}.webhook_config_id AND k.lease_owner = ${owner})))`;
