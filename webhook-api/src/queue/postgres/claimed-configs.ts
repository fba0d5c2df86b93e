// The configuration columns a PostgreSQL claim answers with each delivery.
import { configColumns } from '../../store/row-mapping.ts';

/**
 * The configuration columns a deliverer sends by: not its id (the delivery's webhook_config_id
 * gives it), nor what only the API shows (status and why, its other health counts, its ordering):
 * the pg client reads every column of every claimed row, and each costs.
 */
const unsent = new Set(['id', 'status', 'disabled_reason', 'disabled_at', 'failed_attempts', 'paused_until', 'ordering']);
export const configColumnsOf = (table: string) =>
  configColumns
    .split(', ')
    .filter((column) => !unsent.has(column))
    .map((column) => `${table}.${column}`)
    .join(', ');
