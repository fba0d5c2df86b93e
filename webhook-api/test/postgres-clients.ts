// Connections of a test's own to its PostgreSQL database (a lock held, a wait watched), opened as
// the test asks and all closed after it.
import pg from 'pg';

export interface PostgresClients {
  /** A new connection to the database at `url()`. */
  open(): Promise<pg.Client>;
  /** Closes every connection opened so far. */
  closeAll(): Promise<void>;
}

export function postgresClients(url: () => string): PostgresClients {
  const opened: pg.Client[] = [];
  return {
    async open() {
      const client = new pg.Client({ connectionString: url() });
      await client.connect();
      opened.push(client);
      return client;
    },
    async closeAll() {
      for (const client of opened.splice(0)) await client.end();
    },
  };
}
