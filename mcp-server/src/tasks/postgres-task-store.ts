// The replicas' MCP tasks in PostgreSQL (the registry's schema): a row a task, written by
// compare-and-set on its version and announced with NOTIFY in the same statement, so the replica
// running a task hears at once of a cancellation or a fresh token left by a poll elsewhere. What is
// the caller's alone (arguments, answers, questions, result) is sealed, bound to the task, its
// caller, its client and its tool: a row edited or moved does not open. Opening a task counts the
// open ones under a lock, so the bounds hold across replicas.
import type { Logger } from '@platform/tool-sdk';
import { listenForChanges } from '../registry/postgres/registry-notifications.ts';
import { defaultRegistrySchema, openRegistryPool } from '../registry/postgres/registry-schema.ts';
import type { SealedBox } from '../sealed-box.ts';
import type { TaskContent, TaskRecord, TaskStatus, TaskStore } from './task-records.ts';

export interface PostgresTaskStoreOptions {
  readonly logger: Logger;
  /** Seals each task's content (createSealedBox with the gateway's secret). */
  readonly box: SealedBox;
  /** The registry's schema; mcp_registry by default (tests take one each). */
  readonly schema?: string;
  /** How long a connection or a statement may take. Default 5 000. */
  readonly timeoutMs?: number;
  /** The clock of expiry (epoch ms); the system's by default. */
  readonly clock?: () => number;
}

interface TaskRow {
  task_id: string;
  caller_id: string;
  client_id: string;
  tool: string;
  status: string;
  status_message: string | null;
  created_at: string;
  updated_at: string;
  ttl_ms: string;
  runner: string | null;
  runner_seen_at: string;
  token_expires_at: string;
  token_lifetime_ms: string;
  renewal: string | null;
  polled_at: string;
  content: string;
  version: number;
}

const bindingOf = (record: Pick<TaskRecord, 'id' | 'owner' | 'tool'>) =>
  `task\n${record.id}\n${record.owner.callerId}\n${record.owner.clientId}\n${record.tool}`;

const columns =
  'task_id, caller_id, client_id, tool, status, status_message, created_at, updated_at, ttl_ms, expires_at, runner, runner_seen_at, token_expires_at, token_lifetime_ms, renewal, polled_at, content, version';

/** Connects and creates the table when missing; rejects naming DATABASE_URL (never its value) when it cannot. */
export async function openPostgresTaskStore(connectionString: string, options: PostgresTaskStoreOptions): Promise<TaskStore> {
  const { logger, box, schema = defaultRegistrySchema, timeoutMs = 5_000, clock = Date.now } = options;
  const pool = await openRegistryPool(connectionString, { logger, schema, timeoutMs, max: 4, what: 'the tasks', opener: 'openPostgresTaskStore' });
  const table = `${schema}.tasks`;
  const channel = `${schema}_tasks`;

  const valuesOf = (record: TaskRecord) => [
    record.id,
    record.owner.callerId,
    record.owner.clientId,
    record.tool,
    record.status,
    record.statusMessage ?? null,
    record.createdAt,
    record.updatedAt,
    Math.round(record.ttlMs),
    record.createdAt + Math.round(record.ttlMs),
    record.runner ?? null,
    record.runnerSeenAt,
    record.tokenExpiresAt,
    record.tokenLifetimeMs,
    record.renewal ?? null,
    record.polledAt,
    box.seal(JSON.stringify(record.content), bindingOf(record)),
    record.version,
  ];

  const recordOf = (row: TaskRow): TaskRecord | undefined => {
    const owner = { callerId: row.caller_id, clientId: row.client_id };
    const opened = box.open(row.content, bindingOf({ id: row.task_id, owner, tool: row.tool }));
    if (opened === undefined) {
      logger.warn({ taskId: row.task_id }, 'a task’s row does not open (edited, or sealed under another secret); it is left out');
      return undefined;
    }
    return {
      id: row.task_id,
      owner,
      tool: row.tool,
      status: row.status as TaskStatus,
      statusMessage: row.status_message ?? undefined,
      createdAt: Number(row.created_at),
      updatedAt: Number(row.updated_at),
      ttlMs: Number(row.ttl_ms),
      runner: row.runner ?? undefined,
      runnerSeenAt: Number(row.runner_seen_at),
      tokenExpiresAt: Number(row.token_expires_at),
      tokenLifetimeMs: Number(row.token_lifetime_ms),
      renewal: row.renewal ?? undefined,
      polledAt: Number(row.polled_at),
      content: JSON.parse(opened) as TaskContent,
      version: row.version,
    };
  };

  let closing: Promise<void> | undefined;
  return {
    async create(record, limits) {
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        // One opening at a time at every replica: the counts and the insert agree.
        await client.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [`${table}:open`]);
        const { rows } = await client.query<{ mine: string; total: string }>(
          `SELECT count(*) FILTER (WHERE caller_id = $1) AS mine, count(*) AS total FROM ${table}
            WHERE status IN ('working', 'input_required') AND expires_at >= $2`,
          [record.owner.callerId, clock()],
        );
        const counts = rows[0] ?? { mine: '0', total: '0' };
        let outcome: 'created' | 'caller-limit' | 'total-limit' = 'created';
        if (Number(counts.mine) >= limits.perCaller) outcome = 'caller-limit';
        else if (Number(counts.total) >= limits.total) outcome = 'total-limit';
        else
          await client.query(
            `INSERT INTO ${table} (${columns}) VALUES (${valuesOf(record)
              .map((_, index) => `$${index + 1}`)
              .join(', ')})`,
            valuesOf(record),
          );
        await client.query('COMMIT');
        return outcome;
      } catch (error) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw error;
      } finally {
        client.release();
      }
    },

    async get(id) {
      const { rows } = await pool.query<TaskRow>(`SELECT ${columns} FROM ${table} WHERE task_id = $1 AND expires_at >= $2`, [id, clock()]);
      return rows[0] ? recordOf(rows[0]) : undefined;
    },

    async replace(next, version) {
      const values = valuesOf(next);
      const { rowCount } = await pool.query(
        `WITH changed AS (
           UPDATE ${table} SET status = $5, status_message = $6, updated_at = $8, ttl_ms = $9, expires_at = $10, runner = $11,
             runner_seen_at = GREATEST(runner_seen_at, $12), token_expires_at = $13, token_lifetime_ms = $14, renewal = $15,
             polled_at = $16, content = $17, version = $18
           WHERE task_id = $1 AND version = $19 AND caller_id = $2 AND client_id = $3 AND tool = $4 AND created_at = $7
           RETURNING task_id
         )
         SELECT pg_notify($20, task_id) FROM changed`,
        [...values, version, channel],
      );
      return rowCount === 1;
    },

    async heartbeat(runner, ids) {
      const { rows } = await pool.query<TaskRow>(
        `UPDATE ${table} SET runner_seen_at = GREATEST(runner_seen_at, $3) WHERE task_id = ANY($1::text[]) AND runner = $2 RETURNING ${columns}`,
        [ids, runner, clock()],
      );
      return rows.flatMap((row) => recordOf(row) ?? []);
    },

    async purge(now) {
      const { rowCount } = await pool.query(`DELETE FROM ${table} WHERE expires_at < $1`, [now]);
      return rowCount ?? 0;
    },

    async listen(listener) {
      return listenForChanges(
        {
          connectionString,
          channel,
          connectionTimeoutMs: timeoutMs,
          reconcileMs: 60_000,
          onConnectionLost: (error) => {
            logger.warn({ err: error }, 'the connection that hears of tasks changed elsewhere was lost; connecting again');
          },
        },
        (payload) => {
          if (payload) listener(payload);
        },
      );
    },

    close() {
      closing ??= pool.end();
      return closing;
    },
  };
}
