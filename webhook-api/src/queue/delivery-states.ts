// The attempt log by delivery: a configuration's deliveries, newest first, each with its current
// state and its attempts (oldest first), filtered by state, so "what is still waiting" is one read.
// The same two statements in both dialects (their creation order column named by the dialect).
import type { SqlDriver, SqlRow, SqlValue } from '../store/sql-driver.ts';
import type { Page } from '../store/webhook-store.ts';
import type { AttemptRecord, DeliveryOutcome } from './delivery-queue.ts';
import { loggedInFlightCondition } from './endpoint-logs.ts';

/**
 * A delivery's state as a customer reads it: waiting (queued, never attempted: due, in flight,
 * behind an earlier one of its device, or waiting for its endpoint), retrying (attempted, waiting
 * for or making its next attempt), and the three settled ones.
 */
export type DeliveryState = 'waiting' | 'retrying' | 'delivered' | 'dropped' | 'failed';
export const deliveryStates: readonly DeliveryState[] = ['waiting', 'retrying', 'delivered', 'dropped', 'failed'];

/** Each state as a condition on a delivery row `d`. */
const stateCondition: Readonly<Record<DeliveryState, string>> = {
  waiting: "(d.state IN ('queued', 'held', 'logged') AND d.attempts = 0)",
  retrying: "(d.state IN ('queued', 'held') AND d.attempts > 0)",
  delivered: "d.state = 'delivered'",
  dropped: "d.state = 'dropped'",
  failed: "d.state = 'failed'",
};

/** One attempt of a delivery: the attempt log's line without what the delivery itself says. */
export type DeliveryAttemptLine = Pick<AttemptRecord, 'attempt' | 'outcome' | 'responseStatus' | 'error' | 'responseBody' | 'startedAt' | 'durationMs'>;

export interface DeliveryRecord {
  readonly deliveryId: string;
  /** The Standard Webhooks message id: the `webhook-id` header. */
  readonly webhookId: string;
  readonly state: DeliveryState;
  /** Queued (waiting or retrying) and under a deliverer's lease right now. */
  readonly inFlight: boolean;
  readonly pointCount: number;
  readonly acceptedAt: string;
  readonly settledAt: string | null;
  /** Waiting or retrying: when it is due (or was: a deliverer takes it as soon as it may). */
  readonly nextAttemptAt: string | null;
  readonly resendOf: string | null;
  readonly test: boolean;
  /** Oldest first. */
  readonly attempts: DeliveryAttemptLine[];
}

export interface DeliveryStateFilter {
  readonly states?: readonly DeliveryState[] | undefined;
}

const iso = (value: unknown) => new Date(Number(value)).toISOString();
const textOrNull = (value: unknown) => (typeof value === 'string' ? value : null);

function stateOf(row: SqlRow): DeliveryState {
  const state = String(row.state);
  if (state === 'delivered' || state === 'dropped' || state === 'failed') return state;
  return Number(row.attempts) > 0 ? 'retrying' : 'waiting';
}

export const pageDeliveries =
  (db: Pick<SqlDriver, 'all' | 'dialect'>) =>
  async (configId: string, filter: DeliveryStateFilter, page: { limit: number; after?: number | undefined }, now: number): Promise<Page<DeliveryRecord>> => {
    const position = `d.${db.dialect.sequence}`;
    const values: SqlValue[] = [configId, page.after ?? Number.MAX_SAFE_INTEGER, page.limit + 1, now];
    const states = filter.states?.length ? filter.states : deliveryStates;
    const rows = await db.all(
      `SELECT ${position} AS position, d.id, d.webhook_id, d.state, d.attempts, d.next_attempt_at, d.lease_until, d.accepted_at, d.settled_at, d.resend_of, d.test,
         CASE WHEN d.state = 'logged' AND ${loggedInFlightCondition(db.dialect.sequence, '$4')} THEN 1 ELSE 0 END AS logged_in_flight,
         COALESCE((SELECT MAX(a.point_count) FROM delivery_attempts a WHERE a.delivery_id = d.id), (SELECT COUNT(*) FROM delivery_points p WHERE p.delivery_id = d.id)) AS point_count
       FROM deliveries d
       WHERE d.webhook_config_id = $1 AND ${position} < $2 AND (${states.map((state) => stateCondition[state]).join(' OR ')})
       ORDER BY ${position} DESC LIMIT $3`,
      values,
    );
    const items = rows.slice(0, page.limit);
    const attempts = new Map<string, DeliveryAttemptLine[]>();
    if (items.length > 0) {
      const ids = items.map((row) => String(row.id));
      const lines = await db.all(
        `SELECT delivery_id, attempt, outcome, response_status, error, response_body, started_at, duration_ms FROM delivery_attempts
         WHERE delivery_id IN (${ids.map((_, i) => `$${i + 1}`).join(', ')}) ORDER BY seq`,
        ids,
      );
      for (const line of lines) {
        const list = attempts.get(String(line.delivery_id)) ?? [];
        list.push({
          attempt: Number(line.attempt),
          outcome: line.outcome as DeliveryOutcome,
          responseStatus: line.response_status === null ? null : Number(line.response_status),
          error: textOrNull(line.error),
          responseBody: textOrNull(line.response_body),
          startedAt: iso(line.started_at),
          durationMs: Number(line.duration_ms),
        });
        attempts.set(String(line.delivery_id), list);
      }
    }
    const records = items.map((row): DeliveryRecord => {
      const state = stateOf(row);
      const queued = state === 'waiting' || state === 'retrying';
      return {
        deliveryId: String(row.id),
        webhookId: String(row.webhook_id),
        state,
        inFlight: queued && ((row.lease_until !== null && Number(row.lease_until) > now) || Number(row.logged_in_flight) === 1),
        pointCount: Number(row.point_count),
        acceptedAt: iso(row.accepted_at),
        settledAt: row.settled_at === null ? null : iso(row.settled_at),
        nextAttemptAt: queued ? iso(row.next_attempt_at) : null,
        resendOf: textOrNull(row.resend_of),
        test: row.test === true || row.test === 1,
        attempts: attempts.get(String(row.id)) ?? [],
      };
    });
    return { items: records, next: rows.length > page.limit ? Number(items.at(-1)?.position) : undefined };
  };
