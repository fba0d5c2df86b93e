// Databases for the webhook API's tests with its schema applied, copied rather than applied anew.
import { freshDatabase } from '@platform/devtools/postgres-cluster';
import { openPostgresDatabase } from '../src/database.ts';

// Per cluster, the database this process applied the schema to, closed, for freshDatabase to copy.
const schemaTemplates = new Map<string, Promise<string>>();

/**
 * A new database on the cluster with the schema applied: a copy of one this process applied it to
 * once, which takes a fraction of the time applying it does. For the tests that are not about
 * applying the schema (the first open finds it applied).
 */
export async function freshDatabaseWithSchema(postgresUrl: string | undefined): Promise<string> {
  if (!postgresUrl) return freshDatabase(postgresUrl); // which says why there is none
  let template = schemaTemplates.get(postgresUrl);
  if (!template) {
    template = (async () => {
      const url = await freshDatabase(postgresUrl);
      await (await openPostgresDatabase(url, { maxConnections: 1 })).close();
      return new URL(url).pathname.slice(1);
    })();
    schemaTemplates.set(postgresUrl, template);
  }
  return freshDatabase(postgresUrl, await template);
}
