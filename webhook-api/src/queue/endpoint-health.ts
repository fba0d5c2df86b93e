// An endpoint's health, kept as attempts are settled: the run of failed attempts since the last
// delivered one (when it began, how many), and the disabling of a configuration whose endpoint is
// gone (410 Gone, as Standard Webhooks advises) or has failed every attempt for the stated time with
// at least a few attempts in it. What the attempts of one write say is summed up per configuration
// first (pure), so a write of healthy deliveries costs no statement at all.
import type { SqlQueryable } from '../store/sql-driver.ts';
import { formatDuration } from './duration-text.ts';
import type { DisabledEndpoint, Settlement } from './delivery-queue.ts';

/** When the deliverers disable an endpoint that keeps failing. */
export interface HealthRules {
  /** Every attempt failed for at least this long (WEBHOOK_DISABLE_AFTER)... */
  readonly disableAfterMs: number;
  /** ...and there were at least this many of them (WEBHOOK_DISABLE_MIN_ATTEMPTS). */
  readonly minFailedAttempts: number;
}

/** A day of failures with at least five attempts: a telemetry endpoint down that long is broken, not restarting. */
export const defaultHealthRules: HealthRules = Object.freeze({ disableAfterMs: 24 * 3_600_000, minFailedAttempts: 5 });

/** The endpoint's answer that disables it at once. */
export const goneStatus = 410;

/** An attempt of the attempt log, where the disabling it caused is noted. */
interface AttemptRef {
  readonly deliveryId: string;
}

/** What one write's attempts say of one configuration's endpoint. */
export interface EndpointReport {
  readonly configId: string;
  /** An attempt delivered: the run of failures before it is over. */
  readonly recovered: boolean;
  /** Failed attempts after the last delivered one, and when the first of them started (null when none). */
  readonly failures: number;
  readonly firstFailureAt: number | null;
  /** The last of those, where a disabling is noted in the attempt log. */
  readonly lastFailure: AttemptRef | undefined;
  /** The endpoint answered 410 Gone after its last delivered attempt. */
  readonly gone: boolean;
  /** The endpoint answered 429: nothing is claimed for it before this time (epoch ms); null when it did not. */
  readonly pausedUntil: number | null;
}

/**
 * The reports of the settlements written (`settled`), one per configuration that had a failed
 * attempt or was failing until now; none for a configuration whose attempts all delivered while it
 * was healthy.
 */
export function endpointReports(settlements: readonly Settlement[], settled: ReadonlySet<string>): EndpointReport[] {
  const byConfig = new Map<string, Settlement[]>();
  /** Configurations with something to write: a failed attempt, or a delivered one ending a run of failures. */
  const told = new Set<string>();
  for (const s of settlements) {
    if (!s.endpoint || !settled.has(s.id)) continue;
    const list = byConfig.get(s.endpoint.configId) ?? [];
    list.push(s);
    byConfig.set(s.endpoint.configId, list);
    if (s.outcome !== 'delivered' || s.endpoint.wasFailing) told.add(s.endpoint.configId);
  }
  const reports: EndpointReport[] = [];
  for (const [configId, attempts] of byConfig) {
    if (!told.has(configId)) continue;
    let recovered = false;
    let failures = 0;
    let firstFailureAt: number | null = null;
    let lastFailure: AttemptRef | undefined;
    let gone = false;
    let pausedUntil: number | null = null;
    for (const s of [...attempts].sort((a, b) => a.startedAt - b.startedAt)) {
      const pauseMs = s.endpoint?.pauseMs;
      if (pauseMs !== undefined) pausedUntil = Math.max(pausedUntil ?? 0, Math.round(s.startedAt + s.durationMs + pauseMs));
      if (s.outcome === 'delivered') {
        recovered = true;
        failures = 0;
        firstFailureAt = null;
        lastFailure = undefined;
        gone = false;
        continue;
      }
      failures += 1;
      firstFailureAt ??= s.startedAt;
      lastFailure = { deliveryId: s.id };
      if (s.status === goneStatus) gone = true;
    }
    reports.push({ configId, recovered, failures, firstFailureAt, lastFailure, gone, pausedUntil });
  }
  return reports;
}

/** Why a configuration whose run of failures has reached the rules is disabled. */
export function failingReason(failingSince: number, failedAttempts: number, now: number): string {
  return `every attempt failed for ${formatDuration(now - failingSince)} (${failedAttempts} attempts since ${new Date(failingSince).toISOString()})`;
}

export const goneReason = 'the endpoint answered 410 Gone';

/**
 * Writes the reports in `tx` and disables the configurations they bring to the rules (an active one
 * only, so each disabling is made, logged and counted once whichever deliverer comes to it); the
 * attempt that disabled one says so in the attempt log. The configurations disabled.
 */
export async function applyEndpointHealth(tx: SqlQueryable, reports: readonly EndpointReport[], now: number, rules: HealthRules): Promise<HealthWritten> {
  const disabled: DisabledEndpoint[] = [];
  for (const report of reports) {
    // A 429 pauses the endpoint, and moves a rate-limited one's next send time past the pause.
    const row = await tx.one(
      `UPDATE webhook_configs SET
         failing_since = CASE WHEN $2 = 1 THEN CAST($3 AS BIGINT) ELSE COALESCE(failing_since, CAST($3 AS BIGINT)) END,
         failed_attempts = CASE WHEN $2 = 1 THEN 0 ELSE failed_attempts END + $4,
         paused_until = CASE WHEN CAST($5 AS BIGINT) IS NULL OR COALESCE(paused_until, 0) >= $5 THEN paused_until ELSE $5 END,
         rate_next_slot = CASE WHEN CAST($5 AS BIGINT) IS NULL OR COALESCE(rate_next_slot, 0) >= $5 THEN rate_next_slot ELSE $5 END
       WHERE id = $1 RETURNING status, failing_since, failed_attempts`,
      [report.configId, report.recovered ? 1 : 0, report.firstFailureAt, report.failures, report.pausedUntil],
    );
    if (!row || row.status !== 'Active' || !report.lastFailure) continue;
    const since = row.failing_since === null ? null : Number(row.failing_since);
    const attempts = Number(row.failed_attempts);
    const failedTooLong = since !== null && now - since >= rules.disableAfterMs && attempts >= rules.minFailedAttempts;
    if (!report.gone && !failedTooLong) continue;
    const reason = report.gone ? goneReason : failingReason(since ?? now, attempts, now);
    const made = await tx.one(
      `UPDATE webhook_configs SET status = 'Disabled', disabled_reason = $2, disabled_at = $3 WHERE id = $1 AND status = 'Active' RETURNING company_id`,
      [report.configId, reason, new Date(now).toISOString()],
    );
    if (!made) continue;
    // The attempt's line is the delivery's newest: its settlement wrote it just now.
    await tx.run(
      `UPDATE delivery_attempts SET error = COALESCE(error, '') || $2
       WHERE seq = (SELECT MAX(seq) FROM delivery_attempts WHERE delivery_id = $1)`,
      [report.lastFailure.deliveryId, `; the endpoint is disabled: ${reason}`],
    );
    disabled.push({ configId: report.configId, companyId: Number(made.company_id), reason, cause: report.gone ? 'gone' : 'failing' });
  }
  return { written: reports.map((r) => r.configId), disabled };
}

/** The configurations whose health was written, and those of them disabled. */
export interface HealthWritten {
  readonly written: readonly string[];
  readonly disabled: readonly DisabledEndpoint[];
}
