// The delivery queue on SQLite: one process, one writer, so nobody else is told of new work.
import type { SqlDriver, SqlQueryable } from '../../store/sql-driver.ts';
import { defaultBatchRules, type BatchRules } from '../batch-fill.ts';
import type { DeliveryQueue, Settlement } from '../delivery-queue.ts';
import { createEndpointHealthSignal } from '../endpoint-health-signal.ts';
import { applyEndpointHealth, defaultHealthRules, endpointReports, type HealthRules, type HealthWritten } from '../endpoint-health.ts';
import type { QueueDependencies } from '../queue-dependencies.ts';
import { createSqlDeliveryQueue } from '../sql-delivery-queue.ts';
import { createWorkSignal, type WorkSignal } from '../work-signal.ts';
import { claim, claimIn } from './claim.ts';
import { lockOpenBatches } from './open-batches.ts';
import { settleIn } from './settle.ts';
import { recheckIn } from '../leases.ts';
import { endedStreams, releaseStreams } from '../streams.ts';

export interface SqliteQueueOptions {
  /** Wakes this process's deliverer; the off-loop queue shares it with the in-loop one. */
  readonly signal?: WorkSignal;
  /** How ingest makes batches. */
  readonly batch?: BatchRules;
  /** When settlements disable an endpoint. */
  readonly health?: HealthRules;
  /** The deliverer's claims, settlements and leases: the same connection without the spans of the traced driver (they run in no request's trace). */
  readonly delivererDriver?: SqlDriver;
}

export function createSqliteDeliveryQueue(driver: SqlDriver, options: SqliteQueueOptions = {}): DeliveryQueue {
  const deliverer = options.delivererDriver ?? driver;
  const deps: QueueDependencies = {
    driver,
    delivererDriver: deliverer,
    signal: options.signal ?? createWorkSignal(),
    tellOthers: () => Promise.resolve(),
    batches: { rules: options.batch ?? defaultBatchRules, lockOpen: lockOpenBatches },
    health: options.health ?? defaultHealthRules,
    endpoints: createEndpointHealthSignal(),
    lockStreams: () => Promise.resolve(),
  };
  /** The settlements, what they say of their endpoints, and the next delivery of each stream whose head they ended, in the transaction `tx`. */
  const settleWithHealth = async (tx: SqlQueryable, owner: string, settlements: readonly Settlement[], now: number) => {
    const settled = await settleIn(tx, owner, settlements, now);
    const health = await applyEndpointHealth(tx, endpointReports(settlements, settled), now, deps.health);
    const released = await releaseStreams(tx, driver.dialect.sequence, endedStreams(settlements, settled));
    return { settled, health, released };
  };
  /** What was written of the endpoints' health is told, and this process's deliverer woken for what a stream let go, once the transaction committed. */
  const told = <T extends { health: HealthWritten; released: number }>(result: T): T => {
    deps.endpoints.tell(result.health);
    if (result.released > 0) deps.signal.announce();
    return result;
  };
  return createSqlDeliveryQueue(deps, {
    claim: claim(deliverer),
    settle: async (owner, settlements, now) =>
      settlements.length === 0 ? new Set<string>() : told(await deliverer.transaction((tx) => settleWithHealth(tx, owner, settlements, now))).settled,
    settleAndClaim: async (settlements, request) => {
      const { settled, claimed } = told(
        await deliverer.transaction(async (tx) => ({
          ...(await settleWithHealth(tx, request.owner, settlements, request.now)),
          claimed: await claimIn(tx, request),
        })),
      );
      return { settled, claimed };
    },
    settleAndRecheck: async (settlements, owner, held, now) => {
      const { settled, sendable, setBack } = told(
        await deliverer.transaction(async (tx) => ({
          ...(await settleWithHealth(tx, owner, settlements, now)),
          ...(await recheckIn(tx, deliverer.dialect, owner, held, now)),
        })),
      );
      return { settled, sendable, setBack };
    },
  });
}
