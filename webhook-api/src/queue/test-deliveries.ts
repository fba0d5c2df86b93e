// A test delivery's record: one attempt, already made, kept as a delivery marked as a test with its
// line in the attempt log, so the configuration's log shows what the test came to beside its real
// deliveries. It carries no points (it is never resent or recovered) and queues nothing.
import type { DeliveryQueue } from './delivery-queue.ts';
import type { QueueDependencies } from './queue-dependencies.ts';
import { storableText } from '@platform/tool-sdk/internal';

export const recordTest =
  ({ driver }: Pick<QueueDependencies, 'driver'>): DeliveryQueue['recordTest'] =>
  async (test) => {
    try {
      await driver.transaction(async (tx) => {
        // `(1 = 1)`: true in either dialect.
        await tx.run(
          `INSERT INTO deliveries (id, webhook_id, webhook_config_id, mode, gateway_id, measurement, state, attempts, next_attempt_at, accepted_at, created_at, settled_at,
             point_count, test)
           VALUES ($1, $2, $3, $4, $5, $6, $7, 1, $8, $8, $8, $8, 1, (1 = 1))`,
          [test.id, test.webhookId, test.configId, test.mode, test.gatewayId, test.measurement, test.outcome, test.startedAt],
        );
        await tx.run(
          `INSERT INTO delivery_attempts (delivery_id, webhook_config_id, attempt, outcome, response_status, error, response_body, started_at, duration_ms, point_count)
           VALUES ($1, $2, 0, $3, $4, $5, $6, $7, $8, 1)`,
          [
            test.id,
            test.configId,
            test.outcome,
            test.status,
            test.error === null ? null : storableText(test.error),
            storableText(test.responseBody),
            test.startedAt,
            test.durationMs,
          ],
        );
      });
    } catch (error) {
      // The configuration was deleted while its test was under way: nothing to record it for.
      if (driver.failureOf(error) === 'foreign-key') return 'not-found';
      throw error;
    }
    return 'recorded';
  };
