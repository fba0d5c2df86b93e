// start:pg's own PostgreSQL cluster: passwords only (a local process without one is refused), and
// each service on a role of its own that reaches its own schema only: the gateway cannot read the
// webhook tables, the webhook API cannot read mcp_registry. A cluster an older start:pg made
// without passwords is brought to that as it starts, its data kept.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { handToPostgres, runPostgresProgram, startLocalPostgres, type LocalPostgres } from '@platform/devtools/local-postgres';
import { createLogger } from '@platform/tool-sdk';
import { closedPort } from '@platform/tool-sdk/testing';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { createTokenSeal, openPostgresRegistrationStore } from '../../mcp-server/src/registry/index.ts';
import { openPostgresDatabase } from '../../webhook-api/src/database.ts';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const secret = () => randomBytes(24).toString('base64url');

/** A folder the postgres user may use, as data/ is for start:pg. */
function clusterFolder(): string {
  const parent = mkdtempSync(join(tmpdir(), 'start-pg-cluster-'));
  handToPostgres(parent);
  cleanups.push(() => {
    rmSync(parent, { recursive: true, force: true });
  });
  return join(parent, 'postgres');
}

function started(cluster: LocalPostgres): LocalPostgres {
  cleanups.push(() => {
    cluster.stop();
  });
  return cluster;
}

/** What a connection's first query answers: its rows' first column, or the SQLSTATE (or message) it was refused with. */
async function attempt(url: string, sql = 'SELECT 1 AS one'): Promise<string> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5_000 });
  try {
    await client.connect();
    // Several statements answer one result each: the last one's rows.
    const answer = (await client.query(sql)) as pg.QueryResult | pg.QueryResult[];
    const rows: unknown[] | undefined = Array.isArray(answer) ? answer.at(-1)?.rows : answer.rows;
    return JSON.stringify(rows ?? []);
  } catch (error) {
    return (error as { code?: string }).code ?? (error as Error).message;
  } finally {
    await client.end().catch(() => undefined);
  }
}

describe("start:pg's own cluster", () => {
  it('refuses a connection without the password or with a wrong one, and gives each service a role that reaches only its own schema', async () => {
    const port = await closedPort();
    const secrets = { superuser: secret(), gateway: secret(), webhook: secret() };
    const folder = clusterFolder();
    const cluster = started(startLocalPostgres(folder, port, 'webhooks', secrets));
    const at = `127.0.0.1:${port}/webhooks`;
    // psql had the superuser's password from a password file its connection string named, gone once the cluster is set up.
    expect(readdirSync(folder).filter((name) => name.includes('pass'))).toEqual([]);

    expect(await attempt(`postgres://postgres@${at}`)).toMatch(/password/);
    expect(await attempt(`postgres://postgres:${secret()}@${at}`)).toBe('28P01');
    expect(await attempt(`postgres://mcp_gateway@${at}`)).toMatch(/password/);
    expect(await attempt(`postgres://postgres:${secrets.superuser}@${at}`)).toBe('[{"one":1}]');
    expect(cluster.shownUrl).toBe(`postgres://${at}`);

    // Each service makes its tables as its own role.
    const webhookStore = await openPostgresDatabase(cluster.webhookUrl);
    await webhookStore.close();
    const logger = createLogger({ name: 'mcp-server', level: 'silent' });
    const registrations = await openPostgresRegistrationStore(cluster.gatewayUrl, { logger, tokenSeal: createTokenSeal('gateway secret') });
    expect(await registrations.live()).toEqual([]);
    await registrations.close();

    // 42501: insufficient privilege. Neither reaches the other's tables, nor makes tables outside its schema.
    expect(await attempt(cluster.gatewayUrl, 'SELECT count(*) FROM public.webhook_configs')).toBe('42501');
    expect(await attempt(cluster.gatewayUrl, 'CREATE TABLE public.stolen (x int)')).toBe('42501');
    expect(await attempt(cluster.webhookUrl, 'SELECT count(*) FROM mcp_registry.registrations')).toBe('42501');
    expect(await attempt(cluster.webhookUrl, 'CREATE SCHEMA elsewhere')).toBe('42501');
    expect(await attempt(cluster.webhookUrl, 'SELECT count(*) AS n FROM webhook_configs')).toBe('[{"n":"0"}]');
  });

  it('brings a cluster an older start:pg made without passwords to passwords only, its data kept and handed to its service', async () => {
    const dir = clusterFolder();
    const port = await closedPort();
    // As start:pg made it before: anyone on loopback, as any role, without a password.
    const data = join(dir, 'data');
    const first = startedOld(dir, data, port);
    expect(await attempt(`postgres://postgres@127.0.0.1:${port}/postgres`, 'CREATE DATABASE webhooks')).toBe('[]');
    const old = `postgres://postgres@127.0.0.1:${port}/webhooks`;
    expect(await attempt(old, "CREATE TABLE kept (x text); INSERT INTO kept VALUES ('from before')")).toBe('[]');
    first.stop();

    const secrets = { superuser: secret(), gateway: secret(), webhook: secret() };
    const cluster = started(startLocalPostgres(dir, port, 'webhooks', secrets));

    expect(await attempt(old, 'SELECT 1')).toMatch(/password/);
    expect(await attempt(cluster.webhookUrl, 'SELECT x FROM kept')).toBe('[{"x":"from before"}]');
    expect(await attempt(cluster.gatewayUrl, 'SELECT x FROM public.kept')).toBe('42501');
  });
});

/** The cluster as an older start:pg made and ran it: initdb with trust, started on `port`. */
function startedOld(dir: string, data: string, port: number) {
  runPostgresProgram('initdb', ['-D', data, '-A', 'trust', '-U', 'postgres', '-E', 'UTF8', '--no-sync']);
  runPostgresProgram('pg_ctl', ['-D', data, '-l', join(dir, 'server.log'), '-w', '-o', `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1`, 'start']);
  return {
    stop: () => {
      runPostgresProgram('pg_ctl', ['-D', data, '-m', 'fast', '-w', 'stop']);
    },
  };
}
