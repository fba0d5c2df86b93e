// The attempt log, newest first, a page at a time, each line with its delivery's webhook-id and, while
// the delivery waits for its retry, when that is due: the same statement in both dialects.
import type { SqlQueryable, SqlRow, SqlValue } from '../store/sql-driver.ts';
import type { AttemptRecord, DeliveryQueue } from './delivery-queue.ts';

const numberOrNull = (value: unknown) => (value === null || value === undefined ? null : Number(value));

function toAttempt(row: SqlRow): AttemptRecord {
  const next = numberOrNull(row.next_attempt_at);
  return {
    deliveryId: String(row.delivery_id),
    webhookId: String(row.webhook_id),
    attempt: Number(row.attempt),
    outcome: row.outcome as AttemptRecord['outcome'],
    responseStatus: numberOrNull(row.response_status),
    error: typeof row.error === 'string' ? row.error : null,
    responseBody: typeof row.response_body === 'string' ? row.response_body : null,
    startedAt: new Date(Number(row.started_at)).toISOString(),
    durationMs: Number(row.duration_ms),
    pointCount: Number(row.point_count),
    nextAttemptAt: next === null ? null : new Date(next).toISOString(),
    test: row.test === true || row.test === 1,
  };
}

export const pageAttempts =
  (db: SqlQueryable): DeliveryQueue['pageAttempts'] =>
  async (configId, filter, { limit, after }) => {
    const values: SqlValue[] = [configId, after ?? Number.MAX_SAFE_INTEGER, limit + 1];
    const conditions: string[] = [];
    if (filter.outcome) conditions.push(` AND a.outcome = $${values.push(filter.outcome)}`);
    if (filter.since !== undefined) conditions.push(` AND a.started_at >= $${values.push(filter.since)}`);
    // A delivery's next attempt time belongs on its latest attempt, while it waits for it.
    const rows = await db.all(
      `SELECT a.seq, a.delivery_id, d.webhook_id, d.test, a.attempt, a.outcome, a.response_status, a.error, a.response_body, a.started_at, a.duration_ms, a.point_count,
         CASE WHEN d.state = 'queued' AND a.attempt = d.attempts - 1 THEN d.next_attempt_at END AS next_attempt_at
       FROM delivery_attempts a JOIN deliveries d ON d.id = a.delivery_id
       WHERE a.webhook_config_id = $1 AND a.seq < $2${conditions.join('')}
       ORDER BY a.seq DESC LIMIT $3`,
      values,
    );
    const items = rows.slice(0, limit);
    return { items: items.map(toAttempt), next: rows.length > limit ? Number(items.at(-1)?.seq) : undefined };
  };
