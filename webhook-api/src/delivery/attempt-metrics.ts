// What the deliverer and its queue housekeeping tell the metrics about attempts (DeliveryMetrics has these).
import type { DisabledEndpoint, Settlement } from '../queue/delivery-queue.ts';

export interface AttemptMetrics {
  attempt(outcome: Settlement['outcome'], durationMs: number): void;
  delivered(ingestToDeliveryMs: number, points: number): void;
  /** An endpoint this deliverer disabled, by what disabled it. */
  endpointDisabled?(cause: DisabledEndpoint['cause']): void;
  /** Deliveries of disabled endpoints that aged past the maximum delivery age while they waited, failed. */
  expired?(deliveries: number): void;
}
