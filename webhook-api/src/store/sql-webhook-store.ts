// The one WebhookStore, on any SqlDriver: the statements, the limits checked in the same
// transaction as the insert (the parent row locked), and races answered as values.
import type { ConfigFields, DeviceLink, ScopeRoute } from './records.ts';
import { countOneLessConfig, type CountedConfigInsert } from './config-counts.ts';
import { configColumns, configValues, linkColumns, scopeColumns, optionValues, statusValues, toConfig, toLink, toScope } from './row-mapping.ts';
import type { SqlDriver, SqlQueryable, SqlRow, SqlTransaction, SqlValue } from './sql-driver.ts';
import type { Page, PageRequest, WebhookStore } from './webhook-store.ts';
import type {} from './records.ts';
import { waitOutLogReadAhead, type LogReadAhead } from './log-read-ahead.ts';

/** The row a RETURNING statement gave back. */
function returned(row: SqlRow | undefined): SqlRow {
  if (!row) throw new Error('the statement returned no row');
  return row;
}

const countOf = async (q: SqlQueryable, sql: string, values: SqlValue[]) => Number((await q.one(sql, values))?.n ?? 0);

/**
 * The store on `driver`, whose schema is already applied (openSqliteDriver and openPostgresDriver do
 * that first); `insertCounted` is the dialect's way to count a configuration against its company's
 * limit as it is inserted. Where deliverers read endpoint logs ahead (`readAhead`), a change that
 * stops or alters the sending of an endpoint's points (an update, a deletion, an unlink) answers
 * only once what was read before it can no longer go unchecked (log-read-ahead.ts).
 */
export function createSqlWebhookStore(driver: SqlDriver, insertCounted: CountedConfigInsert, readAhead?: LogReadAhead): WebhookStore {
  const { sequence, forUpdate, secondDotField, jsonRows } = driver.dialect;

  /** `change`'s answer, once a change to `configId` it made can have no held point sent unchecked. */
  async function waitedOut<T>(configId: string, change: Promise<T>, changed: (answer: T) => boolean): Promise<T> {
    const answer = await change;
    if (readAhead && changed(answer)) await waitOutLogReadAhead(driver, readAhead, configId);
    return answer;
  }

  /** Rows of `from` (a FROM ... WHERE ... with `values`) after the page's position, in creation order. */
  async function page<T>(from: string, values: SqlValue[], columns: string, map: (row: SqlRow) => T, request: PageRequest | undefined): Promise<Page<T>> {
    const limit = request?.limit ?? Number.MAX_SAFE_INTEGER - 1;
    const n = values.length;
    const rows = await driver.all(`SELECT ${columns}, ${sequence} AS position ${from} AND ${sequence} > $${n + 1} ORDER BY ${sequence} LIMIT $${n + 2}`, [
      ...values,
      request?.after ?? 0,
      limit + 1,
    ]);
    const items = rows.slice(0, limit);
    return { items: items.map(map), next: rows.length > limit ? Number(items.at(-1)?.position) : undefined };
  }

  const inTransaction = <T>(work: (tx: SqlTransaction) => Promise<T>) => driver.transaction(work);

  /** What a deleted configuration still had to deliver (queued, held, in flight) is failed, each with an attempt-log line saying why. */
  async function failUndelivered(tx: SqlTransaction, id: string, now: number): Promise<void> {
    const failed = await tx.all(
      `UPDATE deliveries SET state = 'failed', settled_at = $2, lease_owner = NULL, lease_until = NULL, batch_open = (1 = 0)
       WHERE webhook_config_id = $1 AND state IN ('queued', 'held', 'logged') RETURNING id, attempts, point_count`,
      [id, now],
    );
    if (failed.length === 0) return;
    await tx.run(
      `INSERT INTO delivery_attempts (delivery_id, webhook_config_id, attempt, outcome, response_status, error, response_body, started_at, duration_ms, point_count)
       SELECT x.id, $2, x.a, 'failed', NULL, $3, '', $4, 0, x.n FROM ${jsonRows('$1', 'x', { id: 'text', a: 'bigint', n: 'bigint' })}`,
      [
        JSON.stringify(failed.map((row) => ({ id: String(row.id), a: Number(row.attempts), n: Number(row.point_count) }))),
        id,
        'not sent: its webhook configuration was deleted',
        now,
      ],
    );
  }

  /** What `work` answers, or the given answer for a unique or foreign-key violation it ran into. */
  async function answering<T, U = never, F = never>(work: Promise<T>, answers: { unique?: U; foreignKey?: F }): Promise<T | U | F> {
    try {
      return await work;
    } catch (error) {
      const failure = driver.failureOf(error);
      if (failure === 'unique' && 'unique' in answers) return answers.unique as U;
      if (failure === 'foreign-key' && 'foreignKey' in answers) return answers.foreignKey as F;
      throw error;
    }
  }

  const configsPage = (companyId: number, request?: PageRequest) =>
    page('FROM webhook_configs WHERE company_id = $1 AND deleted_at IS NULL', [companyId], configColumns, toConfig, request);
  const linksPage = (webhookConfigId: string, request?: PageRequest) =>
    page('FROM device_links WHERE webhook_config_id = $1', [webhookConfigId], linkColumns, toLink, request);
  const scopesPage = (webhookConfigId: string, deviceId: number, request?: PageRequest) =>
    page('FROM scopes WHERE webhook_config_id = $1 AND device_id = $2', [webhookConfigId, deviceId], scopeColumns, toScope, request);

  return {
    // The company's count row is the count and, on PostgreSQL, the lock: concurrent creates of a
    // company take turns on it, and no two pass the limit.
    createConfig: (c, limit) => insertCounted(driver, c, limit ?? Number.MAX_SAFE_INTEGER),
    async getConfig(id) {
      const row = await driver.one(`SELECT ${configColumns} FROM webhook_configs WHERE id = $1 AND deleted_at IS NULL`, [id]);
      return row && toConfig(row);
    },
    async getDeletedConfig(id) {
      const row = await driver.one('SELECT id, company_id, deleted_at FROM webhook_configs WHERE id = $1 AND deleted_at IS NOT NULL', [id]);
      return row && { id: String(row.id), companyId: Number(row.company_id), deletedAt: Number(row.deleted_at) };
    },
    listConfigs: async (companyId) => (await configsPage(companyId)).items,
    pageConfigs: configsPage,
    updateConfig: (id, change) =>
      waitedOut(
        id,
        inTransaction(async (tx) => {
          let fields: ConfigFields;
          if (typeof change === 'function') {
            // Read and write under the row's lock: a concurrent update waits and then merges onto this one.
            const current = await tx.one(`SELECT ${configColumns} FROM webhook_configs WHERE id = $1 AND deleted_at IS NULL${forUpdate}`, [id]);
            if (!current) return undefined;
            fields = change(toConfig(current));
          } else {
            fields = change;
          }
          // A change of status starts the endpoint's health afresh: an endpoint enabled again has its
          // WEBHOOK_DISABLE_AFTER counted from its next failure, not from before it was disabled.
          const row = await tx.one(
            `UPDATE webhook_configs SET name = $1, url = $2, method = $3, delivery_mode = $4, auth_type = $5, auth_payload_encrypted = $6, custom_headers = $7,
           include_metadata_headers = $8, include_retry_header = $9, updated_at = $10,
           failing_since = CASE WHEN status = $12 THEN failing_since END, failed_attempts = CASE WHEN status = $12 THEN failed_attempts ELSE 0 END,
           status = $12, disabled_reason = $13, disabled_at = $14, rate_limit_per_second = $15, ordering = $16
           WHERE id = $11 AND deleted_at IS NULL RETURNING ${configColumns}`,
            [...configValues(fields), new Date().toISOString(), id, ...statusValues(fields), ...optionValues(fields)],
          );
          // Ordered no more: what waited for an earlier delivery of its device goes as it comes now.
          if (row && fields.ordering === 'None') await tx.run(`UPDATE deliveries SET state = 'queued' WHERE webhook_config_id = $1 AND state = 'held'`, [id]);
          return row && toConfig(row);
        }),
        (config) => config !== undefined,
      ),
    rotateSigningSecret: (id, rotate) =>
      inTransaction(async (tx) => {
        // Under the row's lock: two rotations at once take turns, and the second replaces the first's.
        const current = await tx.one(`SELECT ${configColumns} FROM webhook_configs WHERE id = $1 AND deleted_at IS NULL${forUpdate}`, [id]);
        if (!current) return undefined;
        const next = rotate(toConfig(current).signingSecrets);
        const row = await tx.one(
          `UPDATE webhook_configs SET signing_secret_encrypted = $1, previous_signing_secret_encrypted = $2, previous_signing_secret_until = $3, updated_at = $4
           WHERE id = $5 RETURNING ${configColumns}`,
          [next.current, next.previous, next.previousUntil, new Date().toISOString(), id],
        );
        return row && toConfig(row).signingSecrets;
      }),
    deleteConfig: (id, now = Date.now(), check) =>
      waitedOut(
        id,
        inTransaction(async (tx) => {
          if (check) {
            const current = await tx.one(`SELECT ${configColumns} FROM webhook_configs WHERE id = $1 AND deleted_at IS NULL${forUpdate}`, [id]);
            if (!current) return false;
            check(toConfig(current));
          }
          // Kept for its attempt log, with nothing left to deliver with: no credentials, no secrets, no links.
          const deleted = await tx.one(
            `UPDATE webhook_configs SET deleted_at = $2, status = 'Disabled', disabled_reason = 'deleted', auth_type = 'None', auth_payload_encrypted = NULL,
             custom_headers = NULL, signing_secret_encrypted = '', previous_signing_secret_encrypted = NULL, previous_signing_secret_until = NULL
           WHERE id = $1 AND deleted_at IS NULL RETURNING company_id`,
            [id, now],
          );
          if (!deleted) return false;
          await failUndelivered(tx, id, now);
          await tx.run('DELETE FROM device_links WHERE webhook_config_id = $1', [id]);
          await tx.run(countOneLessConfig, [Number(deleted.company_id)]);
          return true;
        }),
        (deleted) => deleted,
      ),
    countConfigs: async () => countOf(driver, 'SELECT COUNT(*) AS n FROM webhook_configs WHERE deleted_at IS NULL', []),
    async encryptionKeyIdsInUse() {
      // The credentials, and the signing secrets: the current one, and the previous one while it still signs.
      const keyIdsOf = (column: string, condition = `${column} IS NOT NULL`) =>
        `SELECT ${secondDotField(column)} AS key_id FROM webhook_configs WHERE deleted_at IS NULL AND ${condition}`;
      const rows = await driver.all(
        `SELECT DISTINCT key_id FROM (${[
          keyIdsOf('auth_payload_encrypted'),
          keyIdsOf('signing_secret_encrypted'),
          keyIdsOf('previous_signing_secret_encrypted', 'previous_signing_secret_encrypted IS NOT NULL AND previous_signing_secret_until > $1'),
        ].join(' UNION ')}) k ORDER BY key_id`,
        [Date.now()],
      );
      return rows.map((row) => String(row.key_id));
    },

    linkDevice(link: DeviceLink, limit?: number) {
      const linked = inTransaction(async (tx) => {
        // The configuration is locked: a concurrent delete waits, or has happened and it is not found.
        if (!(await tx.one(`SELECT id FROM webhook_configs WHERE id = $1 AND deleted_at IS NULL${forUpdate}`, [link.webhookConfigId])))
          return 'not-found' as const;
        if (await tx.one('SELECT device_id FROM device_links WHERE webhook_config_id = $1 AND device_id = $2', [link.webhookConfigId, link.deviceId]))
          return 'already-linked' as const;
        if (limit !== undefined && (await countOf(tx, 'SELECT COUNT(*) AS n FROM device_links WHERE webhook_config_id = $1', [link.webhookConfigId])) >= limit)
          return 'limit-reached' as const;
        const row = await tx.one(`INSERT INTO device_links (webhook_config_id, device_id, created_at) VALUES ($1, $2, $3) RETURNING ${linkColumns}`, [
          link.webhookConfigId,
          link.deviceId,
          link.createdAt,
        ]);
        return toLink(returned(row));
      });
      return answering(linked, { unique: 'already-linked' as const, foreignKey: 'not-found' as const });
    },
    async getLink(webhookConfigId, deviceId) {
      const row = await driver.one(`SELECT ${linkColumns} FROM device_links WHERE webhook_config_id = $1 AND device_id = $2`, [webhookConfigId, deviceId]);
      return row && toLink(row);
    },
    listLinks: async (webhookConfigId) => (await linksPage(webhookConfigId)).items,
    pageLinks: linksPage,
    unlinkDevice: (webhookConfigId, deviceId) =>
      waitedOut(
        webhookConfigId,
        inTransaction(async (tx) => {
          // The device's points go with the link (a foreign key), leaving every queued delivery; one left empty goes too.
          const removed = (await tx.run('DELETE FROM device_links WHERE webhook_config_id = $1 AND device_id = $2', [webhookConfigId, deviceId])) > 0;
          if (removed) {
            await tx.run(
              `DELETE FROM deliveries WHERE webhook_config_id = $1 AND state IN ('queued', 'held', 'logged')
               AND NOT EXISTS (SELECT 1 FROM delivery_points p WHERE p.delivery_id = deliveries.id)`,
              [webhookConfigId],
            );
          }
          return removed;
        }),
        (removed) => removed,
      ),

    createScope(webhookConfigId: string, deviceId: number, s: ScopeRoute & { id: string }, limit?: number) {
      const created = inTransaction(async (tx) => {
        // The link is locked: a concurrent unlink waits, or has happened and it is not found.
        if (!(await tx.one(`SELECT device_id FROM device_links WHERE webhook_config_id = $1 AND device_id = $2${forUpdate}`, [webhookConfigId, deviceId])))
          return 'not-found' as const;
        if (
          limit !== undefined &&
          (await countOf(tx, 'SELECT COUNT(*) AS n FROM scopes WHERE webhook_config_id = $1 AND device_id = $2', [webhookConfigId, deviceId])) >= limit
        )
          return 'limit-reached' as const;
        const row = await tx.one(
          `INSERT INTO scopes (id, webhook_config_id, device_id, scope_level, connection_tag, measurement, enabled) VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING ${scopeColumns}`,
          [s.id, webhookConfigId, deviceId, s.scopeLevel, s.connectionTag, s.measurement, s.enabled],
        );
        return toScope(returned(row));
      });
      return answering(created, { unique: 'duplicate' as const, foreignKey: 'not-found' as const });
    },
    listScopes: async (webhookConfigId, deviceId) => (await scopesPage(webhookConfigId, deviceId)).items,
    pageScopes: scopesPage,
    async updateScope(webhookConfigId, deviceId, s) {
      const updated = driver.one(
        `UPDATE scopes SET scope_level = $1, connection_tag = $2, measurement = $3, enabled = $4 WHERE id = $5 AND webhook_config_id = $6 AND device_id = $7 RETURNING ${scopeColumns}`,
        [s.scopeLevel, s.connectionTag, s.measurement, s.enabled, s.id, webhookConfigId, deviceId],
      );
      const row = await answering(updated, { unique: 'duplicate' as const });
      return row === 'duplicate' || row === undefined ? row : toScope(row);
    },
    deleteScope: async (webhookConfigId, deviceId, scopeId) =>
      (await driver.run('DELETE FROM scopes WHERE id = $1 AND webhook_config_id = $2 AND device_id = $3', [scopeId, webhookConfigId, deviceId])) > 0,
    close: () => driver.close(),
  };
}
