// The queue's size for the metrics, the pruning of settled deliveries past their retention, the end
// of deliveries that waited for a disabled endpoint past the maximum delivery age, and the repair of
// ordered streams left without a head: the same statements in both dialects.
import { formatDuration } from './duration-text.ts';
import type { SqlDriver } from '../store/sql-driver.ts';
import type { DeliveryQueue } from './delivery-queue.ts';
import type { QueueDependencies } from './queue-dependencies.ts';
import { headlessStreams, releaseStreams } from './streams.ts';

const numberOrUndefined = (value: unknown) => (value === null || value === undefined ? undefined : Number(value));

/**
 * Settled deliveries past their retention go, and then every configuration deleted before it whose
 * last delivery has gone: its attempt log was kept that long (nothing of it is left to read).
 */
export const prune =
  (driver: SqlDriver): DeliveryQueue['prune'] =>
  async (before, limit) => {
    const deliveries = await driver.run(
      `DELETE FROM deliveries WHERE id IN (SELECT id FROM deliveries WHERE state NOT IN ('queued', 'held', 'logged') AND settled_at < $1 LIMIT $2)`,
      [before, limit],
    );
    const configs = await driver.run(
      `DELETE FROM webhook_configs WHERE id IN (SELECT c.id FROM webhook_configs c
         WHERE c.deleted_at IS NOT NULL AND c.deleted_at < $1 AND NOT EXISTS (SELECT 1 FROM deliveries d WHERE d.webhook_config_id = c.id) LIMIT $2)`,
      [before, limit],
    );
    return deliveries + configs;
  };

export const stats =
  (driver: SqlDriver): DeliveryQueue['stats'] =>
  async () => {
    const row = await driver.one(
      `SELECT SUM(CASE WHEN batch_open THEN 0 ELSE 1 END) AS queued, SUM(CASE WHEN batch_open THEN point_count ELSE 0 END) AS gathering,
         MIN(accepted_at) AS oldest
       FROM deliveries WHERE state IN ('queued', 'held', 'logged')`,
    );
    return {
      queued: Number(row?.queued ?? 0),
      gathering: Number(row?.gathering ?? 0),
      oldestAcceptedAt: numberOrUndefined(row?.oldest),
    };
  };

const expiredInput = { id: 'text', cfg: 'text', a: 'bigint', n: 'bigint' } as const;

/**
 * A disabled endpoint's deliveries wait (they are neither retried nor failed) until it is enabled
 * again or they are older than the maximum delivery age: then they are failed, each with a line in
 * the attempt log saying so. `false = (1 = 0)` in either dialect: an expired batch is closed too.
 */
export const expireWaiting =
  (driver: SqlDriver): DeliveryQueue['expireWaiting'] =>
  (now, maxAgeMs, limit) =>
    driver.transaction(async (tx) => {
      const expired = await tx.all(
        `UPDATE deliveries SET state = 'failed', settled_at = $1, lease_owner = NULL, lease_until = NULL, batch_open = (1 = 0)
         WHERE id IN (SELECT d.id FROM deliveries d
           WHERE d.state IN ('queued', 'held', 'logged') AND d.accepted_at < $2 AND (d.lease_until IS NULL OR d.lease_until < $1)
             AND d.webhook_config_id IN (SELECT id FROM webhook_configs WHERE status <> 'Active') LIMIT $3)
         RETURNING id, webhook_config_id, attempts, point_count`,
        [now, now - maxAgeMs, limit],
      );
      if (expired.length === 0) return 0;
      await tx.run(
        `INSERT INTO delivery_attempts (delivery_id, webhook_config_id, attempt, outcome, response_status, error, response_body, started_at, duration_ms, point_count)
         SELECT x.id, x.cfg, x.a, 'failed', NULL, $2, '', $3, 0, x.n FROM ${driver.dialect.jsonRows('$1', 'x', expiredInput)}`,
        [
          JSON.stringify(
            expired.map((row) => ({ id: String(row.id), cfg: String(row.webhook_config_id), a: Number(row.attempts), n: Number(row.point_count) })),
          ),
          `not sent: older than the maximum delivery age (${formatDuration(maxAgeMs)}) while its endpoint was disabled`,
          now,
        ],
      );
      return expired.length;
    });

/**
 * Lets the next delivery of every stream that has held deliveries and no head go (a head an unlink
 * or an expiry took away), each stream under its lock; at most `limit` streams, how many were let go.
 */
export const releaseHeadless =
  ({
    delivererDriver: driver,
    lockStreams,
    tellOthers,
    signal,
  }: Pick<QueueDependencies, 'delivererDriver' | 'lockStreams' | 'tellOthers' | 'signal'>): DeliveryQueue['releaseHeadless'] =>
  async (limit) => {
    const streams = await headlessStreams(driver, limit);
    if (streams.length === 0) return 0;
    const released = await driver.transaction(async (tx) => {
      await lockStreams(tx, streams);
      const n = await releaseStreams(tx, driver.dialect.sequence, streams);
      if (n > 0) await tellOthers(tx);
      return n;
    });
    if (released > 0) signal.announce();
    return released;
  };
