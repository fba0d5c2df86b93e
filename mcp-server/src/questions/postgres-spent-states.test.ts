// Spent request states on a real PostgreSQL (vitest.config.ts's postgres project provides the
// cluster): a nonce is spent once across every replica on the database, and expired rows are swept.
import { freshDatabase } from '@platform/devtools/postgres-cluster';
import { createLogger } from '@platform/tool-sdk';
import { captureLogs, closedPort, until } from '@platform/tool-sdk/testing';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import { openPostgresSpentStates, type PostgresSpentStatesOptions } from './postgres-spent-states.ts';
import type { SpentStates } from './spent-states.ts';

let databaseUrl = '';
let reader: pg.Pool | undefined;
beforeAll(async () => {
  databaseUrl = await freshDatabase(inject('postgresUrl'));
  reader = new pg.Pool({ connectionString: databaseUrl, max: 1 });
});
afterAll(async () => {
  await reader?.end();
});

const opened: SpentStates[] = [];
afterEach(async () => {
  for (const store of opened.splice(0)) await store.close();
});

/** A schema no other test uses. */
const freshSchema = () => `spent_${crypto.randomUUID().replaceAll('-', '').slice(0, 16)}`;
const logger = createLogger({ name: 'mcp-server', level: 'silent' });
const inAnHour = () => Date.now() + 60 * 60_000;

/** A store on `schema` of the file's database, closed after the test: one replica. */
async function replica(schema: string, options: Partial<PostgresSpentStatesOptions> = {}): Promise<SpentStates> {
  const store = await openPostgresSpentStates(databaseUrl, { logger, schema, ...options });
  opened.push(store);
  return store;
}

async function rowsOf(schema: string): Promise<string[]> {
  const result = await (reader as pg.Pool).query<{ nonce: string }>(`SELECT nonce FROM ${schema}.spent_request_states ORDER BY nonce`);
  return result.rows.map((row) => row.nonce);
}

describe('spent request states on PostgreSQL', () => {
  it('creates its table and spends a nonce the first time only', async () => {
    const schema = freshSchema();
    const store = await replica(schema);
    expect(await store.spend('nonce-1', inAnHour())).toBe(true);
    expect(await store.spend('nonce-1', inAnHour())).toBe(false);
    expect(await store.spend('nonce-2', inAnHour())).toBe(true);
    expect(await rowsOf(schema)).toEqual(['nonce-1', 'nonce-2']);
  });

  it('keeps the expiry it was given', async () => {
    const schema = freshSchema();
    const store = await replica(schema);
    const expiresAt = Date.UTC(2030, 0, 2, 3, 4, 5, 678);
    await store.spend('nonce-1', expiresAt);
    const result = await (reader as pg.Pool).query<{ expires_at: Date }>(`SELECT expires_at FROM ${schema}.spent_request_states`);
    expect(result.rows[0]?.expires_at.getTime()).toBe(expiresAt);
  });

  it('gives exactly one of two concurrent spends of a nonce', async () => {
    const store = await replica(freshSchema());
    const outcomes = await Promise.all([store.spend('raced', inAnHour()), store.spend('raced', inAnHour())]);
    expect(outcomes.filter(Boolean)).toHaveLength(1);
  });

  it('gives exactly one spend of each nonce across two replicas on the same database', async () => {
    const schema = freshSchema();
    const [left, right] = await Promise.all([replica(schema), replica(schema)]);
    const nonces = Array.from({ length: 40 }, (_, index) => `nonce-${index}`);
    const outcomes = await Promise.all(nonces.map(async (nonce) => Promise.all([left.spend(nonce, inAnHour()), right.spend(nonce, inAnHour())])));
    for (const pair of outcomes) expect(pair.filter(Boolean)).toHaveLength(1);
    expect(await left.spend('nonce-0', inAnHour())).toBe(false);
    expect(await right.spend('nonce-0', inAnHour())).toBe(false);
  });

  it('refuses at one replica a nonce spent at the other, and keeps schemas apart', async () => {
    const schema = freshSchema();
    const first = await replica(schema);
    const second = await replica(schema);
    const elsewhere = await replica(freshSchema());
    expect(await first.spend('nonce-1', inAnHour())).toBe(true);
    expect(await second.spend('nonce-1', inAnHour())).toBe(false);
    expect(await elsewhere.spend('nonce-1', inAnHour())).toBe(true);
  });

  it('sweeps expired rows, keeping the others, so an expired nonce spends again', async () => {
    const schema = freshSchema();
    const store = await replica(schema, { sweepMs: 50 });
    expect(await store.spend('expired', Date.now() - 1_000)).toBe(true);
    expect(await store.spend('current', inAnHour())).toBe(true);
    expect(await rowsOf(schema)).toEqual(['current', 'expired']);
    await until(async () => !(await rowsOf(schema)).includes('expired'), 'the expired row is swept');
    expect(await rowsOf(schema)).toEqual(['current']);
    expect(await store.spend('expired', inAnHour())).toBe(true);
    expect(await store.spend('current', inAnHour())).toBe(false);
  });

  it('refuses a schema name that is not a plain name', async () => {
    await expect(openPostgresSpentStates(databaseUrl, { logger, schema: 'public; DROP TABLE x' })).rejects.toThrow(
      new TypeError('openPostgresSpentStates: schema must be a plain name (got public; DROP TABLE x)'),
    );
  });

  it('rejects naming DATABASE_URL, never its value, when the database cannot be reached', async () => {
    const url = `postgres://postgres:s3cret-pass@127.0.0.1:${await closedPort()}/nowhere`;
    const logs = captureLogs();
    const failure = openPostgresSpentStates(url, {
      logger: createLogger({ name: 'mcp-server', level: 'debug', destination: logs.destination }),
      schema: freshSchema(),
      timeoutMs: 2_000,
    });
    const error = await failure.then(
      () => {
        throw new Error('expected the store not to open');
      },
      (reason: unknown) => reason as Error,
    );
    expect(error.message).toMatch(/^the spent request states' database \(DATABASE_URL\) cannot be used: /);
    expect(error.message).not.toContain('s3cret-pass');
    expect(logs.text()).not.toContain('s3cret-pass');
  });
});
