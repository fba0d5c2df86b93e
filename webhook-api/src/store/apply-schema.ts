// Brings a database to the schema, in either dialect: each version applied once, in a transaction
// with its version recorded, under a lock so processes starting together do not apply one twice.
// Version 1 is the whole schema as it stands (nothing was deployed before it); a later change of
// the schema is appended as the next version.
import type { SqlDriver } from './sql-driver.ts';

/** The versions already applied; none when the table is not there yet. */
async function appliedVersions(driver: SqlDriver): Promise<Set<number>> {
  try {
    return new Set((await driver.all('SELECT version FROM schema_migrations')).map((row) => Number(row.version)));
  } catch {
    return new Set(); // no table yet (or no answer: the locked pass below reports that)
  }
}

export async function applySchema(driver: SqlDriver, versions: readonly string[]): Promise<void> {
  // An up-to-date database takes no lock: a process starting beside running ones does not wait on them.
  const applied = await appliedVersions(driver);
  for (const [index, script] of versions.entries()) {
    const version = index + 1;
    if (applied.has(version)) continue;
    await driver.transaction(async (tx) => {
      await tx.lock('webhook-api schema migrations');
      await tx.exec('CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, applied_at TEXT NOT NULL)');
      if (await tx.one('SELECT version FROM schema_migrations WHERE version = $1', [version])) return;
      await tx.exec(script);
      await tx.run('INSERT INTO schema_migrations (version, applied_at) VALUES ($1, $2)', [version, new Date().toISOString()]);
    });
  }
}
