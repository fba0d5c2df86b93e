// The registrations in PostgreSQL, shared by every replica of the gateway (DATABASE_URL). Each
// write that needs room runs under one lock of the schema's, with its room check, so replicas
// racing for the last places never pass a limit together; each change NOTIFYs the other replicas
// as it commits. Expiry is judged by the database's now(). A database that cannot be reached is
// STORE_UNAVAILABLE, never the tool service's fault. The apps' tokens are kept sealed (token-seal.ts),
// bound to the rest of their row (row-binding.ts): a row that does not open is refused, never dialled.
import type { Logger } from '@platform/tool-sdk';
import type { Tool__Output } from '@platform/proto';
import type pg from 'pg';
import { roomProblem, type Occupant } from '../registration-room.ts';
import type { LiveRegistration, RegistrationStore, StoredRegistration } from '../registration-store.ts';
import { RegistryError } from '../registry-errors.ts';
import { changesChannel, listenForChanges } from './registry-notifications.ts';
import { boundFieldsOf, rowBinding, toolsDigest, toolsDigestColumn } from './row-binding.ts';
import { defaultRegistrySchema, openRegistryPool } from './registry-schema.ts';
import type { TokenSeal } from './token-seal.ts';

export interface PostgresRegistrationStoreOptions {
  readonly logger: Logger;
  /** Seals the apps' tokens in the table: every replica's must be the same (createTokenSeal of the gateway's client secret). */
  readonly tokenSeal: TokenSeal;
  /** The schema of the registrations' table; mcp_registry by default (tests take one each). */
  readonly schema?: string;
  /** How often a replica reads the registrations again without being told to (a safety net). Default 30 000. */
  readonly reconcileMs?: number;
  /** How long a connection or a statement may take. Default 5 000. */
  readonly timeoutMs?: number;
}

/** SQLSTATE classes 08 (connection), 53 (resources), 57P0x (shutdown) and socket errors: the database, not the request. */
function isOutage(error: unknown): boolean {
  const code = (error as { code?: unknown } | undefined)?.code;
  if (typeof code === 'string' && (/^(08|53|57P0)/.test(code) || code === '57014' || code.startsWith('E'))) return true;
  return error instanceof Error && /Connection terminated|timeout|not queryable|Cannot use a pool after calling end/i.test(error.message);
}

const unavailable = (error: unknown): never => {
  if (error instanceof RegistryError || !isOutage(error)) throw error;
  throw new RegistryError('STORE_UNAVAILABLE', undefined, { cause: error });
};

const columns = `registration_id, service_name, app_client_id, app_key, callback_address, granted_ttl_seconds, bytes, since_ms, token`;

/** Connects and creates the schema when missing; rejects naming DATABASE_URL (never its value) when it cannot. */
export async function openPostgresRegistrationStore(connectionString: string, options: PostgresRegistrationStoreOptions): Promise<RegistrationStore> {
  const { logger, tokenSeal, schema = defaultRegistrySchema, reconcileMs = 30_000, timeoutMs = 5_000 } = options;
  const table = `${schema}.registrations`;
  const channel = changesChannel(schema);
  const pool = await openRegistryPool(connectionString, {
    logger,
    schema,
    timeoutMs,
    max: 4,
    what: 'the registrations',
    opener: 'openPostgresRegistrationStore',
  });

  /** Registrations whose row did not open, each told once: edited in the database, or sealed under another key. */
  const refused = new Set<string>();
  /** A row's token, opened under its binding; undefined (and told once) when the row was edited or sealed under another key. */
  const tokenOf = (row: Record<string, unknown>): string | undefined => {
    const fields = boundFieldsOf(row);
    const token = tokenSeal.open(String(row.token), rowBinding(fields));
    if (token !== undefined) {
      refused.delete(fields.registrationId);
      return token;
    }
    if (!refused.has(fields.registrationId)) {
      refused.add(fields.registrationId);
      const { registrationId, appClientId, serviceName, callbackAddress } = fields;
      logger.warn(
        { registrationId, appClientId, serviceName, callbackAddress },
        `registration ${registrationId} is refused: its row does not match what a replica wrote (its app, service name, callback address, tools or token were changed in the database, or a replica with another MCP_GATEWAY_CLIENT_SECRET wrote it); its service is not dialled, and must register again`,
      );
    }
    return undefined;
  };
  const storedOf = (row: Record<string, unknown>, token: string): StoredRegistration => ({
    registrationId: String(row.registration_id),
    serviceName: String(row.service_name),
    appClientId: String(row.app_client_id),
    appKey: String(row.app_key),
    callbackAddress: String(row.callback_address),
    grantedTtlSeconds: Number(row.granted_ttl_seconds),
    bytes: Number(row.bytes),
    since: Number(row.since_ms),
    token,
  });
  /** The rows that open, as live registrations; the others are left out (and told once). */
  const liveOf = (found: Record<string, unknown>[]): LiveRegistration[] =>
    found.flatMap((row) => {
      const token = tokenOf(row);
      return token === undefined ? [] : [{ ...storedOf(row, token), expiresInMs: Number(row.expires_in_ms) }];
    });

  let closing: Promise<void> | undefined;
  const rows = async (text: string, values: unknown[] = []) => (await pool.query<Record<string, unknown>>(text, values).catch(unavailable)).rows;
  const liveColumns = `${columns}, ${toolsDigestColumn}, (extract(epoch FROM expires_at - now()) * 1000)::float8 AS expires_in_ms`;
  /** `work` in a transaction holding the registrations' lock (one writer that needs room at a time), or only its rows' with `exclusive` false. */
  const locked = async <T>(work: (client: pg.PoolClient) => Promise<T>, exclusive = true): Promise<T> => {
    const client = await pool.connect().catch(unavailable);
    try {
      await client.query('BEGIN');
      if (exclusive) await client.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [table]);
      const result = await work(client);
      await client.query('COMMIT');
      client.release();
      return result;
    } catch (error) {
      const outage = isOutage(error);
      if (!outage) await client.query('ROLLBACK').catch(() => undefined);
      client.release(outage ? (error as Error) : undefined);
      return unavailable(error);
    }
  };
  /** The live registrations' occupants, and the one of the same service, which a new registration replaces. */
  const occupantsFor = async (client: pg.ClientBase, appClientId: string, serviceName: string) => {
    const { rows: live } = await client.query<Record<string, unknown>>(`SELECT app_client_id, service_name, bytes FROM ${table} WHERE expires_at > now()`);
    let replacing: Occupant | undefined;
    const occupants = live.map((row) => {
      const occupant: Occupant = { appClientId: String(row.app_client_id), bytes: Number(row.bytes) };
      if (occupant.appClientId === appClientId && row.service_name === serviceName) replacing = occupant;
      return occupant;
    });
    return { occupants, replacing };
  };

  return {
    live: async () => liveOf(await rows(`SELECT ${liveColumns} FROM ${table} WHERE expires_at > now()`)),

    async toolsOf(registrationIds) {
      const found = await rows(`SELECT registration_id, tools FROM ${table} WHERE registration_id = ANY($1::text[])`, [registrationIds]);
      return new Map(found.map((row) => [String(row.registration_id), JSON.parse(String(row.tools)) as Tool__Output[]]));
    },

    async find(registrationId) {
      const [found] = liveOf(await rows(`SELECT ${liveColumns} FROM ${table} WHERE registration_id = $1 AND expires_at > now()`, [registrationId]));
      return found;
    },

    async checkRoom({ appClientId, serviceName, bytes }, rules) {
      const client = await pool.connect().catch(unavailable);
      try {
        const { occupants, replacing } = await occupantsFor(client, appClientId, serviceName);
        const problem = roomProblem(occupants, { appClientId, bytes, replacing }, rules);
        if (problem) throw problem;
      } catch (error) {
        return unavailable(error);
      } finally {
        client.release();
      }
    },

    add(registration, rules) {
      const { tools, ...stored } = registration;
      const toolsJson = JSON.stringify(tools);
      return locked(async (client) => {
        const { occupants, replacing } = await occupantsFor(client, stored.appClientId, stored.serviceName);
        const problem = roomProblem(occupants, { appClientId: stored.appClientId, bytes: stored.bytes, replacing }, rules);
        if (problem) throw problem;
        // The same service's row goes, live or expired (the pair is unique); only a live one was replaced.
        const { rows: gone } = await client.query<Record<string, unknown>>(
          `DELETE FROM ${table} WHERE app_client_id = $1 AND service_name = $2
           RETURNING ${columns}, ${toolsDigestColumn}, expires_at > now() AS live`,
          [stored.appClientId, stored.serviceName],
        );
        const replaced = gone.find((row) => row.live === true);
        // A restart keeps its service's place among its app's (a row that does not open keeps nothing).
        const kept = replaced && tokenOf(replaced) !== undefined ? Number(replaced.since_ms) : undefined;
        const since = kept ?? Number((await client.query<{ now_ms: string }>(`SELECT (extract(epoch FROM now()) * 1000)::bigint AS now_ms`)).rows[0]?.now_ms);
        const binding = rowBinding({ ...stored, since, toolsDigest: toolsDigest(toolsJson) });
        await client.query(
          `INSERT INTO ${table} (${columns}, tools, expires_at)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, now() + $6::int * interval '1 second')`,
          [
            stored.registrationId,
            stored.serviceName,
            stored.appClientId,
            stored.appKey,
            stored.callbackAddress,
            stored.grantedTtlSeconds,
            stored.bytes,
            since,
            tokenSeal.seal(stored.token, binding),
            toolsJson,
          ],
        );
        await client.query(`SELECT pg_notify($1, '')`, [channel]);
        return { replaced: replaced ? String(replaced.registration_id) : undefined };
      });
    },

    renew(registrationId, token) {
      // The row is read and checked before it is sealed anew: a heartbeat must never re-seal a row
      // edited behind the replicas' back. One that does not open answers not found: the service registers again.
      return locked(async (client) => {
        const { rows: found } = await client.query<Record<string, unknown>>(
          `SELECT ${columns}, ${toolsDigestColumn} FROM ${table} WHERE registration_id = $1 AND expires_at > now() FOR UPDATE`,
          [registrationId],
        );
        const row = found[0];
        const old = row && tokenOf(row);
        if (row === undefined || old === undefined) return false;
        await client.query(`UPDATE ${table} SET token = $2, expires_at = now() + granted_ttl_seconds * interval '1 second' WHERE registration_id = $1`, [
          registrationId,
          tokenSeal.seal(token, rowBinding(boundFieldsOf(row))),
        ]);
        // The others are told only of a new token (the actor token they send); a later expiry they learn as they sweep.
        if (old !== token) await client.query(`SELECT pg_notify($1, '')`, [channel]);
        return true;
      }, false);
    },

    async remove(registrationId) {
      const gone = await rows(`WITH gone AS (DELETE FROM ${table} WHERE registration_id = $1 RETURNING registration_id) SELECT pg_notify($2, '') FROM gone`, [
        registrationId,
        channel,
      ]);
      return gone.length > 0;
    },

    async expire() {
      const gone = await rows(`WITH gone AS (DELETE FROM ${table} WHERE expires_at <= now() RETURNING ${columns}) SELECT gone.*, pg_notify($1, '') FROM gone`, [
        channel,
      ]);
      // Logged as they go; their tokens are not needed for that.
      return gone.map((row) => storedOf(row, ''));
    },

    watch: (listener) =>
      listenForChanges(
        {
          connectionString,
          channel,
          connectionTimeoutMs: timeoutMs,
          reconcileMs,
          onConnectionLost: (error) => {
            logger.warn({ err: error }, 'the connection that hears of other replicas’ registrations was lost; connecting again, then reading them all');
          },
        },
        listener,
      ).catch(unavailable),

    close() {
      closing ??= pool.end();
      return closing;
    },
  };
}
