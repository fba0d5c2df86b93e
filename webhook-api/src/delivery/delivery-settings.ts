// How a deliverer works: its limits, timeouts, retry schedule, batching, leases and retention, as
// the settings loader reads them.

export interface DeliverySettings {
  readonly allowPrivateTargets: boolean;
  readonly connectTimeoutMs: number;
  readonly requestTimeoutMs: number;
  readonly responsePrefixBytes: number;
  /** The wait after each failed attempt; its length is the number of retries. */
  readonly retrySchedule: readonly number[];
  readonly retryJitter: number;
  /**
   * A delivery older than this is failed at its next failure, whatever the schedule says; one that
   * waits for a disabled endpoint is failed once it is this old.
   */
  readonly maxAgeMs: number;
  /** An endpoint whose every attempt failed for this long, with at least disableMinAttempts of them, is disabled. */
  readonly disableAfterMs: number;
  readonly disableMinAttempts: number;
  readonly batchMaxPoints: number;
  readonly batchLingerMs: number;
  /** Requests one deliverer has in flight at most, in all and to one endpoint (configuration). */
  readonly maxInFlight: number;
  readonly maxInFlightPerEndpoint: number;
  /** ...and to the endpoints of one company together, so one tenant's slow endpoints cannot take every slot. */
  readonly maxInFlightPerCompany: number;
  readonly leaseMs: number;
  /** How often a deliverer looks for work nobody announced (another SQLite process, expired leases). */
  readonly pollMs: number;
  /** Delivered, dropped and failed deliveries are kept this long for the attempt log and resend. */
  readonly retentionMs: number;
}
