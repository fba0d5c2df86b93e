// New work told to the deliverers of every process sharing the database: NOTIFY on one channel, sent
// when the transaction that queued the work commits, and LISTEN on it (the driver listens again
// after a lost connection, and then calls once for what it may have missed).
import type { PostgresDriver } from '../../store/postgres/postgres-driver.ts';
import type { SqlQueryable } from '../../store/sql-driver.ts';

const channel = 'webhook_work';

/** The notification, as a query. */
export const notifyQuery = `SELECT pg_notify('${channel}', '')`;

export const notifyOthers = async (tx: SqlQueryable): Promise<void> => {
  await tx.run(notifyQuery);
};

export const listenForWork =
  (driver: PostgresDriver) =>
  (listener: () => void): Promise<() => Promise<void>> =>
    driver.listen(channel, listener);
