// The shared store: PostgreSQL (pg), so any number of webhook-api and deliverer processes can use
// one database. Migrations run under an advisory lock, so processes starting together apply each once.
import pg from 'pg';
import type { DeviceLink, Scope } from '../schemas.ts';
import type { ConfigFields, StoredConfig, WebhookStore } from './webhook-store.ts';

const migrationLock = 7_482_001; // any constant shared by every process of this service

const migrations: readonly string[] = [
  `CREATE TABLE webhook_configs (
     id TEXT PRIMARY KEY,
     company_id BIGINT NOT NULL,
     name TEXT NOT NULL,
     url TEXT NOT NULL,
     method TEXT NOT NULL,
     delivery_mode TEXT NOT NULL,
     auth_type TEXT NOT NULL,
     auth_payload_encrypted TEXT,
     custom_headers TEXT,
     include_metadata_headers BOOLEAN NOT NULL,
     include_retry_header BOOLEAN NOT NULL,
     created_at TIMESTAMPTZ NOT NULL DEFAULT clock_timestamp(),
     updated_at TIMESTAMPTZ NOT NULL DEFAULT clock_timestamp()
   );
   CREATE INDEX webhook_configs_company ON webhook_configs (company_id, created_at, id);
   CREATE TABLE device_links (
     webhook_config_id TEXT NOT NULL REFERENCES webhook_configs (id) ON DELETE CASCADE,
     device_id BIGINT NOT NULL,
     created_at TIMESTAMPTZ NOT NULL,
     PRIMARY KEY (webhook_config_id, device_id)
   );
   CREATE INDEX device_links_device ON device_links (device_id);
   CREATE TABLE scopes (
     id TEXT PRIMARY KEY,
     webhook_config_id TEXT NOT NULL,
     device_id BIGINT NOT NULL,
     scope_level TEXT NOT NULL,
     connection_tag TEXT,
     measurement TEXT,
     enabled BOOLEAN NOT NULL,
     created_at TIMESTAMPTZ NOT NULL DEFAULT clock_timestamp(),
     FOREIGN KEY (webhook_config_id, device_id) REFERENCES device_links (webhook_config_id, device_id) ON DELETE CASCADE
   );
   CREATE UNIQUE INDEX scopes_identical ON scopes (webhook_config_id, device_id, scope_level, COALESCE(connection_tag, ''), COALESCE(measurement, ''));`,
];

interface ConfigRow {
  id: string;
  company_id: string;
  name: string;
  url: string;
  method: StoredConfig['method'];
  delivery_mode: StoredConfig['deliveryMode'];
  auth_type: StoredConfig['authType'];
  auth_payload_encrypted: string | null;
  custom_headers: string | null;
  include_metadata_headers: boolean;
  include_retry_header: boolean;
}
interface LinkRow {
  webhook_config_id: string;
  device_id: string;
  created_at: Date;
}
interface ScopeRow {
  id: string;
  scope_level: Scope['scopeLevel'];
  connection_tag: string | null;
  measurement: string | null;
  enabled: boolean;
}

const toConfig = (r: ConfigRow): StoredConfig => ({
  id: r.id,
  companyId: Number(r.company_id),
  name: r.name,
  url: r.url,
  method: r.method,
  deliveryMode: r.delivery_mode,
  authType: r.auth_type,
  authPayloadEncrypted: r.auth_payload_encrypted,
  customHeaders: r.custom_headers,
  includeMetadataHeaders: r.include_metadata_headers,
  includeRetryHeader: r.include_retry_header,
});
const toLink = (r: LinkRow): DeviceLink => ({ deviceId: Number(r.device_id), webhookConfigId: r.webhook_config_id, createdAt: r.created_at.toISOString() });
const toScope = (r: ScopeRow): Scope => ({ id: r.id, scopeLevel: r.scope_level, connectionTag: r.connection_tag, measurement: r.measurement, enabled: r.enabled });

const isUniqueViolation = (error: unknown) => (error as { code?: string }).code === '23505';

const configValues = (f: ConfigFields) => [
  f.name, f.url, f.method, f.deliveryMode, f.authType, f.authPayloadEncrypted, f.customHeaders, f.includeMetadataHeaders, f.includeRetryHeader,
];

async function migrate(pool: pg.Pool): Promise<void> {
  const client = await pool.connect();
  try {
    await client.query('SELECT pg_advisory_lock($1)', [migrationLock]);
    await client.query('CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())');
    const { rows } = await client.query<{ version: number }>('SELECT version FROM schema_migrations');
    const applied = new Set(rows.map((r) => r.version));
    for (const [index, sql] of migrations.entries()) {
      if (applied.has(index + 1)) continue;
      await client.query('BEGIN');
      try {
        await client.query(sql);
        await client.query('INSERT INTO schema_migrations (version) VALUES ($1)', [index + 1]);
        await client.query('COMMIT');
      } catch (error) {
        await client.query('ROLLBACK');
        throw error;
      }
    }
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [migrationLock]).catch(() => undefined);
    client.release();
  }
}

export interface PostgresStoreOptions {
  maxConnections?: number;
  /**
   * Told when an idle connection fails (the server restarted, a failover, a terminated backend).
   * The pool drops that connection and opens a new one on the next query; without a listener, pg
   * would raise the error on the process and end it.
   */
  onIdleConnectionError?: (error: Error) => void;
}

export async function openPostgresStore(connectionString: string, options: PostgresStoreOptions = {}): Promise<WebhookStore> {
  const pool = new pg.Pool({ connectionString, max: options.maxConnections ?? 10 });
  pool.on('error', (error) => {
    options.onIdleConnectionError?.(error);
  });
  await migrate(pool);

  const one = async <R extends pg.QueryResultRow>(sql: string, values: unknown[]) => (await pool.query<R>(sql, values)).rows[0];
  const all = async <R extends pg.QueryResultRow>(sql: string, values: unknown[]) => (await pool.query<R>(sql, values)).rows;
  const changed = async (sql: string, values: unknown[]) => ((await pool.query(sql, values)).rowCount ?? 0) > 0;

  return {
    async createConfig(c) {
      const row = await one<ConfigRow>(
        `INSERT INTO webhook_configs (id, company_id, name, url, method, delivery_mode, auth_type, auth_payload_encrypted, custom_headers, include_metadata_headers, include_retry_header)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) RETURNING *`,
        [c.id, c.companyId, ...configValues(c)],
      );
      if (!row) throw new Error('INSERT returned no row');
      return toConfig(row);
    },
    async getConfig(id) {
      const row = await one<ConfigRow>('SELECT * FROM webhook_configs WHERE id = $1', [id]);
      return row && toConfig(row);
    },
    async listConfigs(companyId) {
      return (await all<ConfigRow>('SELECT * FROM webhook_configs WHERE company_id = $1 ORDER BY created_at, id', [companyId])).map(toConfig);
    },
    async updateConfig(id, fields) {
      const row = await one<ConfigRow>(
        `UPDATE webhook_configs SET name = $1, url = $2, method = $3, delivery_mode = $4, auth_type = $5, auth_payload_encrypted = $6, custom_headers = $7,
           include_metadata_headers = $8, include_retry_header = $9, updated_at = clock_timestamp() WHERE id = $10 RETURNING *`,
        [...configValues(fields), id],
      );
      return row && toConfig(row);
    },
    deleteConfig: (id) => changed('DELETE FROM webhook_configs WHERE id = $1', [id]),
    async countConfigs() {
      return Number((await one<{ n: string }>('SELECT COUNT(*) AS n FROM webhook_configs', []))?.n ?? 0);
    },
    async linkDevice(link) {
      try {
        const row = await one<LinkRow>('INSERT INTO device_links (webhook_config_id, device_id, created_at) VALUES ($1, $2, $3) RETURNING *', [link.webhookConfigId, link.deviceId, link.createdAt]);
        if (!row) throw new Error('INSERT returned no row');
        return toLink(row);
      } catch (error) {
        if (isUniqueViolation(error)) return 'already-linked';
        throw error;
      }
    },
    async getLink(webhookConfigId, deviceId) {
      const row = await one<LinkRow>('SELECT * FROM device_links WHERE webhook_config_id = $1 AND device_id = $2', [webhookConfigId, deviceId]);
      return row && toLink(row);
    },
    async listLinks(webhookConfigId) {
      return (await all<LinkRow>('SELECT * FROM device_links WHERE webhook_config_id = $1 ORDER BY created_at, device_id', [webhookConfigId])).map(toLink);
    },
    unlinkDevice: (webhookConfigId, deviceId) => changed('DELETE FROM device_links WHERE webhook_config_id = $1 AND device_id = $2', [webhookConfigId, deviceId]),
    async createScope(webhookConfigId, deviceId, s) {
      try {
        const row = await one<ScopeRow>(
          'INSERT INTO scopes (id, webhook_config_id, device_id, scope_level, connection_tag, measurement, enabled) VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING *',
          [s.id, webhookConfigId, deviceId, s.scopeLevel, s.connectionTag, s.measurement, s.enabled],
        );
        if (!row) throw new Error('INSERT returned no row');
        return toScope(row);
      } catch (error) {
        if (isUniqueViolation(error)) return 'duplicate';
        throw error;
      }
    },
    async listScopes(webhookConfigId, deviceId) {
      return (await all<ScopeRow>('SELECT * FROM scopes WHERE webhook_config_id = $1 AND device_id = $2 ORDER BY created_at, id', [webhookConfigId, deviceId])).map(toScope);
    },
    async updateScope(webhookConfigId, deviceId, s) {
      try {
        const row = await one<ScopeRow>(
          'UPDATE scopes SET scope_level = $1, connection_tag = $2, measurement = $3, enabled = $4 WHERE id = $5 AND webhook_config_id = $6 AND device_id = $7 RETURNING *',
          [s.scopeLevel, s.connectionTag, s.measurement, s.enabled, s.id, webhookConfigId, deviceId],
        );
        return row && toScope(row);
      } catch (error) {
        if (isUniqueViolation(error)) return 'duplicate';
        throw error;
      }
    },
    deleteScope: (webhookConfigId, deviceId, scopeId) => changed('DELETE FROM scopes WHERE id = $1 AND webhook_config_id = $2 AND device_id = $3', [scopeId, webhookConfigId, deviceId]),
    async close() {
      await pool.end();
    },
  };
}
