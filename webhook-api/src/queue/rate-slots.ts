// A rate-limited configuration's send times, reserved in its row: the next free time moves on by
// 1000/rate ms for each delivery, under the row's lock (one writer on SQLite), so the slots of all
// deliverers together never come closer than that. A reservation no one sends in (a deliverer
// killed while it waited) is lost time, never a request too many.
import type { SqlDriver } from '../store/sql-driver.ts';
import type { DeliveryQueue } from './delivery-queue.ts';

const statement = {
  name: 'webhook_reserve_slots',
  text: `UPDATE webhook_configs
     SET rate_next_slot = (CASE WHEN COALESCE(rate_next_slot, 0) > $2 THEN rate_next_slot ELSE $2 END) + CAST($3 AS DOUBLE PRECISION) * 1000.0 / rate_limit_per_second
     WHERE id = $1 AND rate_limit_per_second IS NOT NULL
     RETURNING rate_next_slot, rate_limit_per_second`,
};

export const reserveSlots =
  (driver: SqlDriver): DeliveryQueue['reserveSlots'] =>
  async (configId, count, now) => {
    const row = await driver.one(statement, [configId, now, count]);
    if (!row) return undefined;
    const interval = 1000 / Number(row.rate_limit_per_second);
    const end = Number(row.rate_next_slot);
    return Array.from({ length: count }, (_, i) => end - (count - i) * interval);
  };
