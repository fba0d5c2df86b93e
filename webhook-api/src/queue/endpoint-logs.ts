// Each endpoint's log of Realtime points (endpoint-log-schema.ts), read the same way by both
// dialects: a deliverer takes an endpoint's cursor (one lease for the endpoint, not one per point),
// reads its next points in log order, at most what fits in its free slots (and a round of them
// ahead where the queue reads ahead: store/log-read-ahead.ts), and sends them as slots free;
// an attempt takes a point out of the log (delivered, dropped, failed or queued for its retry: the
// settlement, as for any delivery, under the cursor's lease). The cursor is given back once its
// holder has nothing of the endpoint in flight or held and its log has nothing left to read. Since only the
// cursor's holder sends an endpoint's logged points, the per-endpoint limit holds across deliverers.
import type { StoredConfig } from '../store/records.ts';
import type { SqlDriver, SqlQueryable, SqlRow } from '../store/sql-driver.ts';
import { configCap, toClaimedDeliveries } from './claimed-deliveries.ts';
import type { ClaimedDelivery, ClaimRequest } from './delivery-queue.ts';
import { logStream, type StreamLock } from './streams.ts';

/** What a deliverer may take from the endpoint logs now: its free slots, in all, per endpoint and per company. */
export interface LogRoom {
  /** Free slots in all. */
  readonly limit: number;
  /** An endpoint's slots (less for a rate-limited one: its rate a second)... */
  readonly perConfig: number;
  /** Lower bounds than perConfig for some endpoints: their rate limits as the deliverer knows them. */
  readonly perConfigCaps?: ReadonlyMap<string, number> | undefined;
  /** ...less what the deliverer has of it in flight or held. */
  readonly inFlight: ReadonlyMap<string, number>;
  readonly perCompany: number;
  readonly inFlightByCompany: ReadonlyMap<number, number>;
  /**
   * At most this many cursors taken anew (besides those held): a deliverer takes one at a time, so
   * endpoints spread over the deliverers that look for work together. No bound when absent.
   */
  readonly newCursors?: number | undefined;
}

/**
 * How many points of an endpoint's log a claim reads at most: the endpoint's free slots (its rate a
 * second for a rate-limited one), within its company's and the total (the oldest of all are then
 * taken within those).
 */
export function logReadSize(room: LogRoom, config: Pick<StoredConfig, 'id' | 'companyId' | 'rateLimitPerSecond'>): number {
  const cap = Math.min(configCap(room.perConfig, config.rateLimitPerSecond), room.perConfigCaps?.get(config.id) ?? room.perConfig);
  const ofConfig = cap - (room.inFlight.get(config.id) ?? 0);
  const ofCompany = room.perCompany - (room.inFlightByCompany.get(config.companyId) ?? 0);
  return Math.max(0, Math.min(ofConfig, ofCompany, room.limit));
}

/** The row claim after the logs were read: what the logs gave counts as in flight. */
export function afterLogReads(request: ClaimRequest, read: readonly { readonly cfg: string; readonly companyId: number }[]): ClaimRequest {
  if (read.length === 0) return request;
  const inFlight = new Map(request.inFlight);
  const inFlightByCompany = new Map(request.inFlightByCompany);
  for (const { cfg, companyId } of read) {
    inFlight.set(cfg, (inFlight.get(cfg) ?? 0) + 1);
    inFlightByCompany.set(companyId, (inFlightByCompany.get(companyId) ?? 0) + 1);
  }
  return { ...request, limit: request.limit - read.length, inFlight, inFlightByCompany };
}

/**
 * Gives back the cursors `which` picks (a FROM and WHERE of its own, `endpoint_cursors` being the
 * updated row) when nothing their holder read is still in the log (every attempt's settlement
 * written: a point read again would be sent twice): free, and active only while the log has points.
 * `sequence` is the dialect's log order.
 */
export const giveBackCursors = (sequence: string, which: string) => `UPDATE endpoint_cursors SET lease_owner = NULL, lease_until = NULL, read_through = 0,
    active = EXISTS (SELECT 1 FROM deliveries d WHERE d.webhook_config_id = endpoint_cursors.webhook_config_id AND d.state = 'logged')
  ${which} AND NOT EXISTS (SELECT 1 FROM deliveries d
    WHERE d.webhook_config_id = endpoint_cursors.webhook_config_id AND d.state = 'logged' AND d.${sequence} <= endpoint_cursors.read_through)`;

/**
 * The room `request` gives the logs: its logRoom, or else the bounds of its rows (a claim made
 * without a deliverer's slots in mind, as the queue's own tests make).
 */
export const logRoomOf = (request: ClaimRequest): LogRoom =>
  request.logRoom ?? {
    limit: request.limit,
    perConfig: request.perConfig,
    perConfigCaps: request.perConfigCaps,
    inFlight: request.inFlight,
    perCompany: request.perCompany ?? Number.MAX_SAFE_INTEGER,
    inFlightByCompany: request.inFlightByCompany ?? new Map<number, number>(),
  };

/** Whether `request` may read the endpoint logs at all. */
export const hasLogRoom = (request: ClaimRequest) => logRoomOf(request).limit > 0;

/** What a dialect read from the logs: the rows (leasedColumns), their configurations, each one's point. */
export interface LogReads {
  readonly rows: SqlRow[];
  readonly configs: Map<string, StoredConfig>;
  readonly points: Map<string, string[]>;
}

/** The points read from the logs as deliveries, in log order (a deliverer sends each endpoint's in that order), marked as logged. */
export const loggedDeliveries = ({ rows, configs, points }: LogReads): ClaimedDelivery[] =>
  toClaimedDeliveries({ claimed: rows, configs, points }, true).map((delivery) => ({ ...delivery, logged: true }));

/**
 * The condition, on a logged delivery row `d`, that its endpoint's cursor holder has read it and
 * holds the cursor at `now` (a parameter): it is being sent, or held to be sent as a slot frees.
 * `sequence` is the dialect's log order.
 */
export const loggedInFlightCondition = (sequence: string, now: string) =>
  `EXISTS (SELECT 1 FROM endpoint_cursors k WHERE k.webhook_config_id = d.webhook_config_id AND k.lease_until >= ${now} AND d.${sequence} <= k.read_through)`;

/** Whether the logged delivery `id` is being sent at `now` (`sequence`: the dialect's log order). */
export async function loggedInFlight(tx: SqlQueryable, sequence: string, id: string, now: number): Promise<boolean> {
  return (await tx.one(`SELECT 1 AS yes FROM deliveries d WHERE d.id = $1 AND ${loggedInFlightCondition(sequence, '$2')}`, [id, now])) !== undefined;
}

/**
 * Gives back the cursors of `configs` that `owner` holds (giveBackCursors' rule), in a transaction
 * that holds their logs' locks first (`lockLogs`: no ingest is writing to them meanwhile), then
 * their rows: whether a log has points is read after any ingest that wrote to it committed (a
 * statement that locks a row it reads would judge by a snapshot taken before it waited, and could
 * mark an endpoint with new points inactive). The rows are locked in their key's order, as a
 * renewal and a release lock them (leases.ts, heldCursorsInOrder): no lock cycle with either.
 */
export async function giveBackIdle(driver: SqlDriver, lockLogs: StreamLock, owner: string, configs: readonly string[]): Promise<void> {
  if (configs.length === 0) return;
  const { dialect } = driver;
  await driver.transaction(async (tx) => {
    await lockLogs(
      tx,
      configs.map((cfg) => ({ cfg, stream: logStream })),
    );
    const locked = await tx.all(
      `SELECT webhook_config_id FROM endpoint_cursors WHERE lease_owner = $1 AND ${dialect.idIn('webhook_config_id', '$2')} ORDER BY webhook_config_id${dialect.forUpdate}`,
      [owner, JSON.stringify(configs.map((id) => ({ id })))],
    );
    for (const row of locked) await tx.run(giveBackCursors(dialect.sequence, 'WHERE webhook_config_id = $1'), [String(row.webhook_config_id)]);
  });
}
