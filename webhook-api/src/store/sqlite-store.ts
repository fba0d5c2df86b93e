// The embedded store: one SQLite file (node:sqlite) in WAL mode with foreign keys on.
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { DatabaseSync, type SQLInputValue } from 'node:sqlite';
import type { DeviceLink, Scope } from '../schemas.ts';
import type { ConfigFields, StoredConfig, WebhookStore } from './webhook-store.ts';

const migrations: readonly string[] = [
  `CREATE TABLE webhook_configs (
     id TEXT PRIMARY KEY,
     company_id INTEGER NOT NULL,
     name TEXT NOT NULL,
     url TEXT NOT NULL,
     method TEXT NOT NULL,
     delivery_mode TEXT NOT NULL,
     auth_type TEXT NOT NULL,
     auth_payload_encrypted TEXT,
     custom_headers TEXT,
     include_metadata_headers INTEGER NOT NULL,
     include_retry_header INTEGER NOT NULL,
     created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
     updated_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
   );
   CREATE INDEX webhook_configs_company ON webhook_configs (company_id, created_at, id);
   CREATE TABLE device_links (
     webhook_config_id TEXT NOT NULL REFERENCES webhook_configs (id) ON DELETE CASCADE,
     device_id INTEGER NOT NULL,
     created_at TEXT NOT NULL,
     PRIMARY KEY (webhook_config_id, device_id)
   );
   CREATE INDEX device_links_device ON device_links (device_id);
   CREATE TABLE scopes (
     id TEXT PRIMARY KEY,
     webhook_config_id TEXT NOT NULL,
     device_id INTEGER NOT NULL,
     scope_level TEXT NOT NULL,
     connection_tag TEXT,
     measurement TEXT,
     enabled INTEGER NOT NULL,
     created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
     FOREIGN KEY (webhook_config_id, device_id) REFERENCES device_links (webhook_config_id, device_id) ON DELETE CASCADE
   );
   CREATE UNIQUE INDEX scopes_identical ON scopes (webhook_config_id, device_id, scope_level, COALESCE(connection_tag, ''), COALESCE(measurement, ''));`,
];

interface ConfigRow {
  id: string;
  company_id: number;
  name: string;
  url: string;
  method: StoredConfig['method'];
  delivery_mode: StoredConfig['deliveryMode'];
  auth_type: StoredConfig['authType'];
  auth_payload_encrypted: string | null;
  custom_headers: string | null;
  include_metadata_headers: 0 | 1;
  include_retry_header: 0 | 1;
}
interface LinkRow {
  webhook_config_id: string;
  device_id: number;
  created_at: string;
}
interface ScopeRow {
  id: string;
  scope_level: Scope['scopeLevel'];
  connection_tag: string | null;
  measurement: string | null;
  enabled: 0 | 1;
}

const toConfig = (r: ConfigRow): StoredConfig => ({
  id: r.id,
  companyId: r.company_id,
  name: r.name,
  url: r.url,
  method: r.method,
  deliveryMode: r.delivery_mode,
  authType: r.auth_type,
  authPayloadEncrypted: r.auth_payload_encrypted,
  customHeaders: r.custom_headers,
  includeMetadataHeaders: r.include_metadata_headers === 1,
  includeRetryHeader: r.include_retry_header === 1,
});
const toLink = (r: LinkRow): DeviceLink => ({ deviceId: r.device_id, webhookConfigId: r.webhook_config_id, createdAt: r.created_at });
const toScope = (r: ScopeRow): Scope => ({ id: r.id, scopeLevel: r.scope_level, connectionTag: r.connection_tag, measurement: r.measurement, enabled: r.enabled === 1 });

function isUniqueViolation(error: unknown): boolean {
  const code = (error as { errcode?: number }).errcode;
  return code === 2067 || code === 1555; // SQLITE_CONSTRAINT_UNIQUE, SQLITE_CONSTRAINT_PRIMARYKEY
}

const configValues = (f: ConfigFields): SQLInputValue[] => [
  f.name, f.url, f.method, f.deliveryMode, f.authType, f.authPayloadEncrypted, f.customHeaders,
  f.includeMetadataHeaders ? 1 : 0, f.includeRetryHeader ? 1 : 0,
];

export function openSqliteStore(path: string): WebhookStore {
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  const db = new DatabaseSync(path);
  db.exec('PRAGMA journal_mode = WAL; PRAGMA foreign_keys = ON; PRAGMA busy_timeout = 5000; PRAGMA synchronous = NORMAL;');
  db.exec('CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, applied_at TEXT NOT NULL)');
  const applied = new Set((db.prepare('SELECT version FROM schema_migrations').all() as unknown as { version: number }[]).map((r) => r.version));
  migrations.forEach((sql, index) => {
    if (applied.has(index + 1)) return;
    db.exec('BEGIN IMMEDIATE');
    try {
      db.exec(sql);
      db.prepare('INSERT INTO schema_migrations (version, applied_at) VALUES (?, ?)').run(index + 1, new Date().toISOString());
      db.exec('COMMIT');
    } catch (error) {
      db.exec('ROLLBACK');
      throw error;
    }
  });

  const statements = {
    insertConfig: db.prepare(`INSERT INTO webhook_configs (id, company_id, name, url, method, delivery_mode, auth_type, auth_payload_encrypted, custom_headers, include_metadata_headers, include_retry_header)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING *`),
    getConfig: db.prepare('SELECT * FROM webhook_configs WHERE id = ?'),
    listConfigs: db.prepare('SELECT * FROM webhook_configs WHERE company_id = ? ORDER BY created_at, id'),
    updateConfig: db.prepare(`UPDATE webhook_configs SET name = ?, url = ?, method = ?, delivery_mode = ?, auth_type = ?, auth_payload_encrypted = ?, custom_headers = ?,
      include_metadata_headers = ?, include_retry_header = ?, updated_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now') WHERE id = ? RETURNING *`),
    deleteConfig: db.prepare('DELETE FROM webhook_configs WHERE id = ?'),
    countConfigs: db.prepare('SELECT COUNT(*) AS n FROM webhook_configs'),
    insertLink: db.prepare('INSERT INTO device_links (webhook_config_id, device_id, created_at) VALUES (?, ?, ?) RETURNING *'),
    getLink: db.prepare('SELECT * FROM device_links WHERE webhook_config_id = ? AND device_id = ?'),
    listLinks: db.prepare('SELECT * FROM device_links WHERE webhook_config_id = ? ORDER BY created_at, device_id'),
    deleteLink: db.prepare('DELETE FROM device_links WHERE webhook_config_id = ? AND device_id = ?'),
    insertScope: db.prepare('INSERT INTO scopes (id, webhook_config_id, device_id, scope_level, connection_tag, measurement, enabled) VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING *'),
    listScopes: db.prepare('SELECT * FROM scopes WHERE webhook_config_id = ? AND device_id = ? ORDER BY created_at, id'),
    updateScope: db.prepare('UPDATE scopes SET scope_level = ?, connection_tag = ?, measurement = ?, enabled = ? WHERE id = ? AND webhook_config_id = ? AND device_id = ? RETURNING *'),
    deleteScope: db.prepare('DELETE FROM scopes WHERE id = ? AND webhook_config_id = ? AND device_id = ?'),
  };

  return {
    createConfig(c) {
      const row = statements.insertConfig.get(c.id, c.companyId, ...configValues(c)) as unknown as ConfigRow;
      return Promise.resolve(toConfig(row));
    },
    getConfig(id) {
      const row = statements.getConfig.get(id) as unknown as ConfigRow | undefined;
      return Promise.resolve(row && toConfig(row));
    },
    listConfigs(companyId) {
      return Promise.resolve((statements.listConfigs.all(companyId) as unknown as ConfigRow[]).map(toConfig));
    },
    updateConfig(id, fields) {
      const row = statements.updateConfig.get(...configValues(fields), id) as unknown as ConfigRow | undefined;
      return Promise.resolve(row && toConfig(row));
    },
    deleteConfig(id) {
      return Promise.resolve(Number(statements.deleteConfig.run(id).changes) > 0);
    },
    countConfigs() {
      return Promise.resolve((statements.countConfigs.get() as unknown as { n: number }).n);
    },
    linkDevice(link) {
      try {
        return Promise.resolve(toLink(statements.insertLink.get(link.webhookConfigId, link.deviceId, link.createdAt) as unknown as LinkRow));
      } catch (error) {
        if (isUniqueViolation(error)) return Promise.resolve('already-linked' as const);
        throw error;
      }
    },
    getLink(webhookConfigId, deviceId) {
      const row = statements.getLink.get(webhookConfigId, deviceId) as unknown as LinkRow | undefined;
      return Promise.resolve(row && toLink(row));
    },
    listLinks(webhookConfigId) {
      return Promise.resolve((statements.listLinks.all(webhookConfigId) as unknown as LinkRow[]).map(toLink));
    },
    unlinkDevice(webhookConfigId, deviceId) {
      return Promise.resolve(Number(statements.deleteLink.run(webhookConfigId, deviceId).changes) > 0);
    },
    createScope(webhookConfigId, deviceId, s) {
      try {
        const row = statements.insertScope.get(s.id, webhookConfigId, deviceId, s.scopeLevel, s.connectionTag, s.measurement, s.enabled ? 1 : 0) as unknown as ScopeRow;
        return Promise.resolve(toScope(row));
      } catch (error) {
        if (isUniqueViolation(error)) return Promise.resolve('duplicate' as const);
        throw error;
      }
    },
    listScopes(webhookConfigId, deviceId) {
      return Promise.resolve((statements.listScopes.all(webhookConfigId, deviceId) as unknown as ScopeRow[]).map(toScope));
    },
    updateScope(webhookConfigId, deviceId, s) {
      try {
        const row = statements.updateScope.get(s.scopeLevel, s.connectionTag, s.measurement, s.enabled ? 1 : 0, s.id, webhookConfigId, deviceId) as unknown as ScopeRow | undefined;
        return Promise.resolve(row && toScope(row));
      } catch (error) {
        if (isUniqueViolation(error)) return Promise.resolve('duplicate' as const);
        throw error;
      }
    },
    deleteScope(webhookConfigId, deviceId, scopeId) {
      return Promise.resolve(Number(statements.deleteScope.run(scopeId, webhookConfigId, deviceId).changes) > 0);
    },
    close() {
      db.close();
      return Promise.resolve();
    },
  };
}
