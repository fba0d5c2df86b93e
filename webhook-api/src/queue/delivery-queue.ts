// The delivery queue: what ingest, the deliverers and the attempt log ask of it, and the words they
// share. Ingest routes points to configurations and queues them in one transaction; deliverers form
// batches, claim due work under a lease and settle it with a compare-and-swap on the lease. No
// transaction is open while a request is in flight: a claim and a settlement are each one short
// transaction. Each dialect implements it in its own folder (sqlite/, postgres/), one file per
// operation; what both say alike is in this folder.
import type { DeliveryMode } from '../store/records.ts';
import type { Page } from '../store/webhook-store.ts';
import type { DeliveryRecord, DeliveryStateFilter } from './delivery-states.ts';
import type { LogRoom } from './endpoint-logs.ts';
import type { LogReadAhead } from '../store/log-read-ahead.ts';
import type {
  ClaimedDelivery,
  HeldDelivery,
  DeliveryOutcome,
  HeldBack,
  Settlement,
  DisabledEndpoint,
  SettledAndClaimed,
  SettledAndRechecked,
  AttemptRecord,
} from './delivery-records.ts';
export { deliveryOutcomes } from './delivery-records.ts';
export type {
  ClaimedDelivery,
  HeldDelivery,
  DeliveryOutcome,
  HeldBack,
  Settlement,
  EndpointNote,
  DisabledEndpoint,
  SettledAndClaimed,
  SettledAndRechecked,
  Rechecked,
  AttemptRecord,
} from './delivery-records.ts';

/** A point as ingest accepted it, with what routing needs and its delivered shape as JSON text. */
export interface QueuedPoint {
  readonly deviceId: number;
  readonly gatewayId: string;
  readonly connectionTag: string;
  readonly measurement: string;
  /** {"Measurement","Fields","Tags","UtcTimestamp","DeviceId","ConnectionTag"} as JSON text: what the endpoint receives. */
  readonly point: string;
}

/** What ingest queued: (point, configuration) pairs, and those not queued because the configuration is disabled (when any were not). */
export interface IngestResult {
  readonly queued: number;
  readonly skipped?: number;
  /** Present when an earlier request with the same Idempotency-Key and points was answered: that answer, and nothing queued now. */
  readonly replayed?: { readonly accepted: number; readonly queued: number };
}

/** An ingest request's Idempotency-Key, kept per ingest caller, with a digest of the points it came with. */
export interface IdempotencyKey {
  readonly caller: string;
  readonly key: string;
  readonly bodyHash: string;
}

/**
 * The Standard Webhooks message id (`webhook-id`) of a delivery, from the delivery id in SQL: `msg_`
 * and the id. Kept on every retry, and copied to a resend.
 */
export const messageIdOf = (idExpression: string) => `'${messageIdPrefix}' || ${idExpression}`;

/** What a `webhook-id` is made of: this, and the delivery id. */
export const messageIdPrefix = 'msg_';

/** A test delivery as it was made: one attempt, recorded as a settled delivery marked as a test. */
export interface TestDelivery {
  readonly id: string;
  readonly webhookId: string;
  readonly configId: string;
  readonly mode: DeliveryMode;
  readonly gatewayId: string;
  readonly measurement: string;
  /** A test is never retried: what would have been retried is failed. */
  readonly outcome: 'delivered' | 'dropped' | 'failed';
  readonly status: number | null;
  readonly error: string | null;
  readonly responseBody: string;
  readonly startedAt: number;
  readonly durationMs: number;
}

/** What a retry-now came to: the time it is due, or why it is not waiting. */
export type RetryNow = { readonly nextAttemptAt: number } | 'not-found' | 'in-flight' | 'settled' | HeldBack;

export interface ClaimRequest {
  /** This deliverer: leases are taken and settled in its name only. */
  readonly owner: string;
  readonly leaseMs: number;
  readonly now: number;
  /** At most this many deliveries in all. */
  readonly limit: number;
  /** At most this many of one configuration... */
  readonly perConfig: number;
  /** ...less what this deliverer already has in flight for it. */
  readonly inFlight: ReadonlyMap<string, number>;
  /**
   * A lower bound than perConfig for some configurations this deliverer has in flight: their rate
   * limit (a second's worth of requests), so one deliverer never holds more than that waiting for
   * their slots. A configuration not named here is bounded by its rate limit as the claim reads it.
   */
  readonly perConfigCaps?: ReadonlyMap<string, number>;
  /** At most this many of one company's configurations together (no bound by default)... */
  readonly perCompany?: number;
  /** ...less what this deliverer already has in flight for the company. */
  readonly inFlightByCompany?: ReadonlyMap<number, number>;
  /**
   * The endpoint logs' room (endpoint-logs.ts): their points are sent as soon as they are read, never
   * held, so the claim reads at most what fits in the deliverer's free slots now. Without it the
   * claim reads no log.
   */
  readonly logRoom?: LogRoom;
}

export interface QueueStats {
  /** Deliveries waiting to be made (due or retrying), not counting batches still open. */
  readonly queued: number;
  /** Batch points in batches still open (not full, not yet claimed). */
  readonly gathering: number;
  /** When the oldest of those was accepted (epoch ms). */
  readonly oldestAcceptedAt: number | undefined;
}

export interface DeliveryQueue {
  /**
   * Routes the points per the scopes as they are now and queues what they match, in one
   * transaction: a Realtime point as a delivery of its own, a Batch point in its group's open batch
   * (batch-fill.ts); the number of (point, configuration) pairs queued, and of those not queued
   * because the configuration is disabled. With an Idempotency-Key (ingest-keys.ts), a repeat of
   * an earlier request within the window gets its answer and queues nothing, and the same key with
   * other points is 'key-conflict'.
   */
  ingest(points: readonly QueuedPoint[], now: number, idempotency?: IdempotencyKey): Promise<IngestResult | 'key-conflict'>;
  /** Leases due deliveries (an open batch is closed as it is claimed). */
  claim(request: ClaimRequest): Promise<ClaimedDelivery[]>;
  /**
   * settle, then checks deliveries `owner` claimed ahead of sending, just before they are sent:
   * `sendable` are the ids that may go now, with their configurations as they are now (a PUT since
   * the claim applies). Left out: those not held any more (their configuration
   * deleted, their device unlinked, their lease taken over), and those given back to the queue by
   * the call (their endpoint disabled or paused, a batch whose points an unlink changed, or their
   * lease run out, when another deliverer may take them: claimed again later as they are then);
   * points read ahead from an endpoint's log that are not to be sent now (the same rules, the
   * cursor's lease for theirs) are given back to the log (`setBack`). One transaction on SQLite, statements of their own on PostgreSQL.
   */
  settleAndRecheck(settlements: readonly Settlement[], owner: string, held: readonly HeldDelivery[], now: number): Promise<SettledAndRechecked>;
  /** Extends the leases `owner` holds on `ids` (looked up by id: the queue keeps settled rows too); the number extended. */
  renewLeases(owner: string, ids: readonly string[], until: number): Promise<number>;
  /** Records attempts of deliveries `owner` still holds; the ids whose lease was lost (taken over, or the delivery cancelled) are left out of the answer. */
  settle(owner: string, settlements: readonly Settlement[], now: number): Promise<Set<string>>;
  /**
   * settle, then claim (as `owner`, at `request.now`): one transaction on SQLite, two statements on
   * PostgreSQL's deliverer connections (a settlement stands whether the claim does or not): what a
   * deliverer does when requests have ended and it has room again.
   */
  settleAndClaim(settlements: readonly Settlement[], request: ClaimRequest): Promise<SettledAndClaimed>;
  /**
   * Reserves `count` send times for a rate-limited configuration, spaced 1000/rate ms apart from
   * the later of `now` and the end of the last reservation (of any deliverer); undefined when the
   * configuration has no rate limit (any more).
   */
  reserveSlots(configId: string, count: number, now: number): Promise<number[] | undefined>;
  /** Gives back every lease `owner` holds (a clean shutdown), so others may take the work at once. */
  release(owner: string): Promise<number>;
  /** When the next queued delivery becomes due or its lease expires (epoch ms), if any is queued. */
  nextDueAt(): Promise<number | undefined>;
  pageAttempts(
    configId: string,
    filter: { readonly outcome?: DeliveryOutcome | undefined; readonly since?: number | undefined },
    page: { limit: number; after?: number | undefined },
  ): Promise<Page<AttemptRecord>>;
  /** The configuration's deliveries, newest first, each with its state at `now` and its attempts (delivery-states.ts). */
  pageDeliveries(
    configId: string,
    filter: DeliveryStateFilter,
    page: { limit: number; after?: number | undefined },
    now: number,
  ): Promise<Page<DeliveryRecord>>;
  /**
   * Makes a delivery of `configId` that waits for its retry due now, keeping its attempt count
   * (its next X-Webhook-Retry-Count). Refused while a deliverer is sending it, and once it is settled
   * (delivered, dropped or failed: a resend sends those again).
   */
  retryNow(configId: string, deliveryId: string, now: number): Promise<RetryNow>;
  /**
   * Queues a dropped or failed delivery of `configId` again, as a new delivery with its points of
   * devices still linked (`resent`: its id). Refused while it or a resend of it is queued, when it
   * was delivered, for a test delivery, and when none of its devices is linked any more.
   */
  resend(
    configId: string,
    deliveryId: string,
    now: number,
  ): Promise<{ readonly resent: string } | 'not-found' | 'not-settled' | 'resend-queued' | 'delivered' | 'unlinked' | 'test'>;
  /**
   * Queues again every failed or dropped delivery of `configId` settled at or after `since` that
   * was not sent again already, each as a new delivery with its points of devices still linked and
   * its webhook-id, oldest first and at most `limit`: how many, and whether more are left.
   */
  recover(configId: string, since: number, now: number, limit: number): Promise<{ readonly queued: number; readonly more: boolean }>;
  /** Records a test delivery and its attempt in the attempt log; 'not-found' when its configuration is gone. */
  recordTest(test: TestDelivery): Promise<'recorded' | 'not-found'>;
  /**
   * Fails the deliveries of disabled endpoints accepted more than `maxAgeMs` before `now` (at most
   * `limit`), each with a line in the attempt log; how many.
   */
  expireWaiting(now: number, maxAgeMs: number, limit: number): Promise<number>;
  /**
   * Tells the deliverers of every process that work may be due that they would not otherwise hear
   * of: an endpoint enabled again, whose deliveries waited.
   */
  announce(): Promise<void>;
  /**
   * Lets the next delivery of each ordered stream that has held deliveries and no head go (its head
   * went with an unlink or an expiry), at most `limit` streams; how many were let go.
   */
  releaseHeadless(limit: number): Promise<number>;
  /** Deletes the Idempotency-Keys past their window at `now`, at most `limit`; how many. */
  pruneIngestKeys(now: number, limit: number): Promise<number>;
  /**
   * Deletes delivered, dropped and failed deliveries settled before `before`, at most `limit`, then
   * the configurations deleted before it that have no delivery left (at most `limit`); how many rows in all.
   */
  prune(before: number, limit: number): Promise<number>;
  stats(): Promise<QueueStats>;
  /**
   * Called in this process when one of its deliverer's settlements disabled an endpoint (once per
   * disabling, whichever process made it): for the log line and the metric.
   */
  onEndpointDisabled(listener: (endpoint: DisabledEndpoint) => void): () => void;
  /**
   * Called in this process with the configurations whose endpoint health its deliverer's
   * settlements wrote (through the same connection as the store, where a cache of configurations
   * would not see the change otherwise).
   */
  onEndpointHealthWritten(listener: (configIds: readonly string[]) => void): () => void;
  /** Called in this process when new work is queued (ingest, resend, a batch made or full). */
  onWork(listener: () => void): () => void;
  /**
   * Called when another process queued work (PostgreSQL's NOTIFY), and once more after a lost
   * connection is back; absent where no other process can (SQLite). Resolves once listening.
   */
  readonly onWorkElsewhere?: ((listener: () => void) => Promise<() => Promise<void>>) | undefined;
  /** How far a deliverer reads endpoint logs ahead of its free slots (store/log-read-ahead.ts); absent: no further than them (SQLite, in the process). */
  readonly logReadAhead?: LogReadAhead | undefined;
}
