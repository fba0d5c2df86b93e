// A deliverer with its sender, as both the API process and `npm run deliverer` run it: credentials
// decrypted through the vault at send time, one connection pool per origin (as large as the
// deliverer's own limit), notifications from other processes when the queue has them.
import type { Logger } from '@platform/tool-sdk';
import type { CredentialVault } from '../configs/credential-vault.ts';
import type { DeliveryQueue } from '../queue/delivery-queue.ts';
import type { AttemptMetrics } from './attempt-metrics.ts';
import { createDeliverer, type Deliverer } from './deliverer.ts';
import type { DeliverySettings } from './delivery-settings.ts';
import type { WebhookSender } from './outgoing.ts';
import { createWebhookSender } from './webhook-sender.ts';

export interface DeliveryServiceOptions {
  readonly queue: DeliveryQueue;
  readonly vault: CredentialVault;
  readonly settings: DeliverySettings;
  readonly logger: Logger;
  readonly metrics?: AttemptMetrics | undefined;
  /** Default true; false only in the bench, to measure what signing costs. */
  readonly signDeliveries?: boolean;
}

export interface DeliveryService {
  readonly deliverer: Deliverer;
  /** Stops the deliverer (requests in flight finish or are given back) and closes the connection pools. */
  stop(graceMs?: number): Promise<void>;
}

/**
 * The sender of deliveries as the settings configure it, with credentials decrypted through the
 * vault at send time: the deliverer's, and the API's for test deliveries, which must go exactly as
 * a real delivery would.
 */
export function createDeliverySender(vault: CredentialVault, settings: DeliverySettings, options: { signDeliveries?: boolean } = {}): WebhookSender {
  return createWebhookSender({
    decryptCredentials: (encrypted, configId) => vault.decrypt(encrypted, configId),
    allowPrivateTargets: settings.allowPrivateTargets,
    connectTimeoutMs: settings.connectTimeoutMs,
    requestTimeoutMs: settings.requestTimeoutMs,
    responsePrefixBytes: Math.max(1, settings.responsePrefixBytes),
    // Configurations of different companies may share an origin (a hosted webhook service): the
    // per-endpoint and per-company limits bound each, and the pool must not bind them together.
    maxConnectionsPerOrigin: settings.maxInFlight,
    ...(options.signDeliveries === false && { signDeliveries: false }),
  });
}

export async function startDeliveryService(options: DeliveryServiceOptions): Promise<DeliveryService> {
  const { queue, vault, settings, logger } = options;
  const sender = createDeliverySender(vault, settings, { ...(options.signDeliveries === false && { signDeliveries: false }) });
  const deliverer = createDeliverer({ queue, sender, settings, logger, metrics: options.metrics });
  await deliverer.start();
  return {
    deliverer,
    async stop(graceMs) {
      await deliverer.stop(graceMs);
      await sender.close();
    },
  };
}
