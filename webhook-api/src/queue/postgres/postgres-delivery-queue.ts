// The delivery queue on PostgreSQL: any number of processes share it; new work is announced to the
// others by NOTIFY and heard by LISTEN.
import type { PostgresDriver } from '../../store/postgres/postgres-driver.ts';
import type { SqlDriver } from '../../store/sql-driver.ts';
import { defaultBatchRules, type BatchRules } from '../batch-fill.ts';
import type { DeliveryQueue, Settlement } from '../delivery-queue.ts';
import { createEndpointHealthSignal } from '../endpoint-health-signal.ts';
import { applyEndpointHealth, defaultHealthRules, endpointReports, type HealthRules } from '../endpoint-health.ts';
import type { QueueDependencies } from '../queue-dependencies.ts';
import { createSqlDeliveryQueue } from '../sql-delivery-queue.ts';
import { createWorkSignal } from '../work-signal.ts';
import { claim, claimIn } from './claim.ts';
import { lockOpenBatches } from './open-batches.ts';
import { settleIn } from './settle.ts';
import { recheckIn } from '../leases.ts';
import { postgresLogReadAhead, type LogReadAhead } from '../../store/log-read-ahead.ts';
import { lockStreams, streamLocksQuery } from './stream-locks.ts';
import { endedStreams, releaseStreams } from '../streams.ts';
import { listenForWork, notifyOthers, notifyQuery } from './work-notifications.ts';

export interface PostgresQueueOptions {
  /** How ingest makes batches. */
  readonly batch?: BatchRules;
  /**
   * The deliverer's connections (deliverer-connection.ts): claims, settlements, leases and pruning
   * run there, each statement on its own; `driver` when not given, each claim then a transaction
   * that sets the planner as those sessions are set.
   */
  readonly delivererDriver?: SqlDriver;
  /** When settlements disable an endpoint. */
  readonly health?: HealthRules;
  /** How far deliverers read endpoint logs ahead: postgresLogReadAhead unless given. */
  readonly logReadAhead?: LogReadAhead;
}

export function createPostgresDeliveryQueue(driver: PostgresDriver, options: PostgresQueueOptions = {}): DeliveryQueue {
  const own = options.delivererDriver;
  const deliverer: SqlDriver = own ?? {
    ...driver,
    // Without sessions of its own, a claim's statements run in a transaction whose planner walks the indexes.
    one: (sql, values) => driver.transaction((tx) => tx.one(sql, values), { indexScans: true }),
    all: (sql, values) => driver.transaction((tx) => tx.all(sql, values), { indexScans: true }),
  };
  const deps: QueueDependencies = {
    driver,
    delivererDriver: own ?? driver,
    signal: createWorkSignal(),
    tellOthers: notifyOthers,
    batches: { rules: options.batch ?? defaultBatchRules, lockOpen: lockOpenBatches },
    health: options.health ?? defaultHealthRules,
    endpoints: createEndpointHealthSignal(),
    lockStreams,
    inOneStatement: { lockStreams: streamLocksQuery, tellOthers: notifyQuery },
  };
  /**
   * The settlements, each statement committing on its own, then what they say of their endpoints:
   * nothing more to write while every attempt delivered to a healthy endpoint.
   */
  const settleWithHealth = async (owner: string, settlements: readonly Settlement[], now: number): Promise<Set<string>> => {
    if (settlements.length === 0) return new Set<string>();
    const inOrder = settlements.filter((s) => s.stream);
    const settled =
      inOrder.length === settlements.length
        ? new Set<string>()
        : await settleIn(
            deps.delivererDriver,
            owner,
            settlements.filter((s) => !s.stream),
            now,
          );
    if (inOrder.length > 0) for (const id of await settleInOrder(owner, inOrder, now)) settled.add(id);
    const reports = endpointReports(settlements, settled);
    if (reports.length > 0) deps.endpoints.tell(await deps.delivererDriver.transaction((tx) => applyEndpointHealth(tx, reports, now, deps.health)));
    return settled;
  };
  /**
   * The settlements of ordered deliveries, in a transaction holding their streams' locks: a head
   * ended and its stream's next delivery let go together, so no ingest or other settlement sees the
   * stream without a head, or with two.
   */
  const settleInOrder = async (owner: string, settlements: readonly Settlement[], now: number): Promise<Set<string>> => {
    const { settled, released } = await deps.delivererDriver.transaction(async (tx) => {
      await lockStreams(
        tx,
        settlements.flatMap((s) => (s.stream && s.endpoint ? [{ cfg: s.endpoint.configId, stream: s.stream }] : [])),
      );
      const done = await settleIn(tx, owner, settlements, now);
      const letGo = await releaseStreams(tx, driver.dialect.sequence, endedStreams(settlements, done));
      if (letGo > 0) await notifyOthers(tx);
      return { settled: done, released: letGo };
    });
    if (released > 0) deps.signal.announce();
    return settled;
  };
  return createSqlDeliveryQueue(deps, {
    claim: claim(deliverer),
    settle: settleWithHealth,
    // Each statement commits on its own: a settlement stands whether or not the claim after it does.
    // On connections of their own, side by side: neither waits for the other's round trip (a cursor
    // whose settlements are not in yet is simply not given back by this claim).
    settleAndClaim: async (settlements, request) => {
      const [settled, claimed] = await Promise.all([settleWithHealth(request.owner, settlements, request.now), claimIn(deliverer, request)]);
      return { settled, claimed };
    },
    settleAndRecheck: async (settlements, owner, held, now) => ({
      settled: await settleWithHealth(owner, settlements, now),
      ...(await recheckIn(deliverer, driver.dialect, owner, held, now)),
    }),
    onWorkElsewhere: listenForWork(driver),
    logReadAhead: options.logReadAhead ?? postgresLogReadAhead,
  });
}
