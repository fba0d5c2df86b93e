// GET /metrics for Prometheus: the SDK's one metrics handler and access rule over the delivery
// metrics (they count every tenant's deliveries, so the settings require a token or an explicit
// WEBHOOK_METRICS_PUBLIC=true). A store that cannot be read while the queue gauges are collected is
// an outage (503), not a fault of the scrape.
import { createMetricsHandler, type MetricsAccess, type MetricsHandler } from '@platform/tool-sdk/observability';
import type { DeliveryMetrics } from '../delivery/metrics.ts';
import { StoreUnavailableError } from '../store/store-unavailable.ts';

export function metricsHandler({ metrics, access }: { metrics: DeliveryMetrics; access: MetricsAccess }): MetricsHandler {
  return createMetricsHandler(metrics.registry, access, {
    outage: { is: (error) => error instanceof StoreUnavailableError, message: 'The webhook store could not be reached; try again.\n' },
  });
}
