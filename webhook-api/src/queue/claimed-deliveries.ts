// What both dialects' claims share: how many due rows a claim looks at, the columns it answers, and
// what it leased turned into the deliveries a deliverer sends.
import type { StoredConfig } from '../store/records.ts';
import type { SqlRow } from '../store/sql-driver.ts';
import type { ClaimedDelivery, ClaimRequest } from './delivery-queue.ts';

/** What a claim leased: the rows, their configurations as they are now, and each one's points in order. */
export interface Leased {
  readonly claimed: readonly SqlRow[];
  readonly configs: ReadonlyMap<string, StoredConfig>;
  readonly points: ReadonlyMap<string, string[]>;
}

/**
 * How many due rows a claim looks at: one endpoint's worth (a deliverer claims several rounds of its
 * slots at once, so `perConfig` is already a few rounds), at least 64. Not the whole room: one
 * endpoint with a few slots free would otherwise read (and on PostgreSQL lock) hundreds of its rows
 * to take those few; other endpoints' rows further on are taken by the next claim.
 */
export const claimWindow = (limit: number, perConfig: number) => Math.min(2000, Math.max(perConfig, Math.min(2 * limit, 64)));

/** A claimed row's columns; `sequence` is the dialect's creation order. */
export const leasedColumns = (table: string, sequence: string) =>
  ['id', 'webhook_id', 'webhook_config_id', 'mode', 'gateway_id', 'measurement', 'attempts', 'accepted_at', 'next_attempt_at', 'trace_context', 'stream']
    .map((c) => `${table}.${c}`)
    .join(', ') + `, ${table}.${sequence} AS position`;

/**
 * The earliest due first, and in creation order among equals (RETURNING follows no order); points
 * of endpoint logs in log order alone (`inLogOrder`: an ingest's time is taken before it waits for
 * its log's lock, so a later position may have an earlier time).
 */
export function toClaimedDeliveries({ claimed, configs, points }: Leased, inLogOrder = false): ClaimedDelivery[] {
  const ordered = [...claimed].sort(
    (a, b) => (inLogOrder ? 0 : Number(a.next_attempt_at) - Number(b.next_attempt_at)) || Number(a.position) - Number(b.position),
  );
  const result: ClaimedDelivery[] = [];
  for (const row of ordered) {
    const config = configs.get(String(row.webhook_config_id));
    const its = points.get(String(row.id));
    // Deleted (its configuration) or emptied (an unlink) since the claim: nothing to send; the settlement will not find it.
    if (!config || !its) continue;
    result.push({
      id: String(row.id),
      webhookId: String(row.webhook_id),
      config,
      mode: row.mode === 'Batch' ? 'Batch' : 'Realtime',
      gatewayId: String(row.gateway_id),
      measurement: String(row.measurement),
      points: its,
      attempts: Number(row.attempts),
      acceptedAt: Number(row.accepted_at),
      traceContexts: typeof row.trace_context === 'string' && row.trace_context !== '' ? row.trace_context.split(' ') : [],
      stream: typeof row.stream === 'string' ? row.stream : null,
    });
  }
  return result;
}

/** How many of a configuration one deliverer may have in flight: perConfig, or less for a rate-limited one (its rate a second). */
export const configCap = (perConfig: number, rateLimitPerSecond: number | null | undefined) =>
  rateLimitPerSecond === null || rateLimitPerSecond === undefined ? perConfig : Math.min(perConfig, rateLimitPerSecond);

/** Each configuration in flight with the room it has left under its cap. */
export const configRoom = (request: Pick<ClaimRequest, 'perConfig' | 'inFlight' | 'perConfigCaps'>): { cfg: string; n: number }[] =>
  [...request.inFlight].map(([cfg, n]) => ({ cfg, n: Math.max(0, Math.min(request.perConfig, request.perConfigCaps?.get(cfg) ?? request.perConfig) - n) }));
