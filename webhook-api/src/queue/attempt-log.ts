// The attempt log, newest first, a page at a time: the same statement in both dialects.
import type { SqlQueryable, SqlRow, SqlValue } from '../store/sql-driver.ts';
import type { AttemptRecord, DeliveryQueue } from './delivery-queue.ts';

const numberOrNull = (value: unknown) => (value === null || value === undefined ? null : Number(value));

function toAttempt(row: SqlRow): AttemptRecord {
  return {
    deliveryId: String(row.delivery_id),
    attempt: Number(row.attempt),
    outcome: row.outcome as AttemptRecord['outcome'],
    responseStatus: numberOrNull(row.response_status),
    error: typeof row.error === 'string' ? row.error : null,
    responseBody: typeof row.response_body === 'string' ? row.response_body : null,
    startedAt: new Date(Number(row.started_at)).toISOString(),
    durationMs: Number(row.duration_ms),
    pointCount: Number(row.point_count),
  };
}

export const pageAttempts =
  (db: SqlQueryable): DeliveryQueue['pageAttempts'] =>
  async (configId, filter, { limit, after }) => {
    const values: SqlValue[] = [configId, after ?? Number.MAX_SAFE_INTEGER, limit + 1];
    if (filter.outcome) values.push(filter.outcome);
    const rows = await db.all(
      `SELECT seq, delivery_id, attempt, outcome, response_status, error, response_body, started_at, duration_ms, point_count
       FROM delivery_attempts WHERE webhook_config_id = $1 AND seq < $2${filter.outcome ? ' AND outcome = $4' : ''}
       ORDER BY seq DESC LIMIT $3`,
      values,
    );
    const items = rows.slice(0, limit);
    return { items: items.map(toAttempt), next: rows.length > limit ? Number(items.at(-1)?.seq) : undefined };
  };
