// What a deliverer listens to while it runs: new work announced in this process and, where the
// queue can tell, in others (PostgreSQL's LISTEN); and the endpoints its settlements disabled, for
// the log line and the metric.
import type { Logger } from '@platform/tool-sdk';
import type { DeliveryQueue } from '../queue/delivery-queue.ts';
import type { AttemptMetrics } from './attempt-metrics.ts';

export interface WorkListenerOptions {
  readonly queue: DeliveryQueue;
  /** Called when work may be due. */
  readonly wake: () => void;
  readonly log: Logger;
  readonly metrics: AttemptMetrics | undefined;
  /** The poll that stands in when other processes cannot be heard. */
  readonly pollMs: number;
}

/** Starts listening; the function it resolves to stops every listener. */
export async function listenForWork({ queue, wake, log, metrics, pollMs }: WorkListenerOptions): Promise<() => Promise<void>> {
  const stopWorkListener = queue.onWork(wake);
  // Once per disabling, in the process whose settlement made it.
  const stopDisabledListener = queue.onEndpointDisabled((endpoint) => {
    metrics?.endpointDisabled?.(endpoint.cause);
    log.warn(
      { webhookConfigId: endpoint.configId, companyId: endpoint.companyId, cause: endpoint.cause, reason: endpoint.reason },
      'a webhook endpoint was disabled: new points are not queued for it and what is queued waits until it is enabled again',
    );
  });
  let stopElsewhere: (() => Promise<void>) | undefined;
  if (queue.onWorkElsewhere) {
    try {
      stopElsewhere = await queue.onWorkElsewhere(wake);
    } catch (error) {
      log.warn({ err: error }, `could not LISTEN for new work; polling every ${pollMs} ms instead`);
    }
  }
  return async () => {
    stopWorkListener();
    stopDisabledListener();
    await stopElsewhere?.();
  };
}
