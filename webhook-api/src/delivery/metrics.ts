// The deliverer's Prometheus metrics, in a registry of their own (with the process's default
// metrics): what ingest accepted and queued, what each attempt came to and how long it took, the
// ingest-to-delivery latency, and the queue's depth and oldest age, read from the store at scrape time.
//
// No label names a configuration, company or URL: their number has no bound, and every label value
// is a time series Prometheus keeps. The attempt log (GET /v2/webhooks/{id}/deliveries) is where one
// configuration's deliveries are looked at.
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { DeliveryOutcome, DeliveryQueue, DisabledEndpoint, QueueStats } from '../queue/delivery-queue.ts';

export interface DeliveryMetrics {
  readonly registry: Registry;
  /** Points accepted by ingest, the (point, configuration) pairs they queued, and those not queued because the configuration is disabled. */
  ingested(points: number, queued: number, skipped?: number, featureDisabled?: number): void;
  /** An endpoint a deliverer of this process disabled: counts webhook_endpoints_disabled_total{cause}. */
  endpointDisabled(cause: DisabledEndpoint['cause']): void;
  /** Deliveries of disabled endpoints failed for their age: counted as webhook_deliveries_total{outcome="failed"}. */
  expired(deliveries: number): void;
  /** One attempt finished: counts webhook_deliveries_total{outcome="delivered"|"dropped"|"failed"} or webhook_retries_total, and observes webhook_attempt_duration_seconds{outcome}. */
  attempt(outcome: DeliveryOutcome, durationMs: number): void;
  /** A delivery delivered: observes webhook_ingest_to_delivery_seconds once per point it carried, with the time since its acceptance. */
  delivered(ingestToDeliveryMs: number, points: number): void;
}

export interface DeliveryMetricsOptions {
  /** Read at scrape time for the queue gauges. */
  readonly queue: Pick<DeliveryQueue, 'stats'>;
  /** The clock the oldest queued age is measured with (epoch ms). */
  readonly now?: () => number;
}

/** One request: from a few milliseconds to the 30 s request timeout. */
const attemptBuckets = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20, 30];
/** Acceptance to delivery: a batch's linger and a few seconds in the normal case; retries take minutes to hours, which the last buckets show. */
const latencyBuckets = [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 1800, 3600];

export function createDeliveryMetrics({ queue, now = Date.now }: DeliveryMetricsOptions): DeliveryMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });

  const pointsIngested = new Counter({ name: 'webhook_points_ingested_total', help: 'Data points accepted by ingest.', registers: [registry] });
  const pointsQueued = new Counter({
    name: 'webhook_points_queued_total',
    help: 'Pairs of a data point and a configuration it was queued for (one point may go to several configurations).',
    registers: [registry],
  });
  const deliveries = new Counter({
    name: 'webhook_deliveries_total',
    help: 'Deliveries settled for good: delivered, dropped (the endpoint refused it) or failed (retries ran out).',
    labelNames: ['outcome'] as const,
    registers: [registry],
  });
  const pointsNotQueued = new Counter({
    name: 'webhook_points_not_queued_total',
    help: 'Not queued: pairs of a data point and a configuration its scopes matched while the configuration is disabled (endpoint_disabled), or data points taken in while the webhook feature is off here (feature_disabled).',
    labelNames: ['reason'] as const,
    registers: [registry],
  });
  const endpointsDisabled = new Counter({
    name: 'webhook_endpoints_disabled_total',
    help: 'Configurations the deliverers of this process disabled: their endpoint answered 410 Gone (gone), or every attempt failed for WEBHOOK_DISABLE_AFTER (failing).',
    labelNames: ['cause'] as const,
    registers: [registry],
  });
  const retries = new Counter({ name: 'webhook_retries_total', help: 'Attempts that failed and were queued again.', registers: [registry] });
  const attemptDuration = new Histogram({
    name: 'webhook_attempt_duration_seconds',
    help: 'How long one attempt took, by what it came to.',
    labelNames: ['outcome'] as const,
    buckets: attemptBuckets,
    registers: [registry],
  });
  const ingestToDelivery = new Histogram({
    name: 'webhook_ingest_to_delivery_seconds',
    help: 'From the acceptance of a data point to its delivery, once per point.',
    buckets: latencyBuckets,
    registers: [registry],
  });

  // Both gauges are read in one scrape: they share one stats query.
  let reading: Promise<QueueStats> | undefined;
  const currentStats = () =>
    (reading ??= queue.stats().finally(() => {
      reading = undefined;
    }));

  new Gauge({
    name: 'webhook_queue_depth',
    help: 'Deliveries queued (due, retrying or in flight); batches still open (filling) are counted by their points in webhook_batch_points_waiting.',
    registers: [registry],
    async collect() {
      this.set((await currentStats()).queued);
    },
  });
  new Gauge({
    name: 'webhook_batch_points_waiting',
    help: 'Batch data points in batches still open: not full, not yet taken by a deliverer.',
    registers: [registry],
    async collect() {
      this.set((await currentStats()).gathering);
    },
  });
  new Gauge({
    name: 'webhook_oldest_queued_age_seconds',
    help: 'Age of the oldest data point still waiting to be delivered (queued, or in a batch still open); 0 when none.',
    registers: [registry],
    async collect() {
      const { oldestAcceptedAt } = await currentStats();
      this.set(oldestAcceptedAt === undefined ? 0 : Math.max(0, now() - oldestAcceptedAt) / 1000);
    },
  });

  return {
    registry,
    ingested(points, queued, skipped = 0, featureDisabled = 0) {
      pointsIngested.inc(points);
      pointsQueued.inc(queued);
      if (skipped > 0) pointsNotQueued.inc({ reason: 'endpoint_disabled' }, skipped);
      if (featureDisabled > 0) pointsNotQueued.inc({ reason: 'feature_disabled' }, featureDisabled);
    },
    endpointDisabled(cause) {
      endpointsDisabled.inc({ cause });
    },
    expired(n) {
      deliveries.inc({ outcome: 'failed' }, n);
    },
    attempt(outcome, durationMs) {
      if (outcome === 'retrying') retries.inc();
      else deliveries.inc({ outcome });
      attemptDuration.observe({ outcome }, durationMs / 1000);
    },
    delivered(ingestToDeliveryMs, points) {
      const seconds = Math.max(0, ingestToDeliveryMs) / 1000;
      for (let i = 0; i < points; i++) ingestToDelivery.observe(seconds);
    },
  };
}
