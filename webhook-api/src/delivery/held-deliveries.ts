// Deliveries a deliverer has claimed ahead of sending them: an endpoint at its in-flight limit is
// fed from here the moment a request ends, not after another claim (a round trip on PostgreSQL,
// a transaction on SQLite), and each claim takes many rows at once. What is held is held under the
// deliverer's lease like what is in flight, so a crash loses none of it. It is held at most
// `maxAgeMs`: past that its configuration as claimed is too old to send by, and it is given back.
// How many an endpoint gets ahead follows how many it finished in the last such span, so a slow
// endpoint has no work held that it could not send before it went stale.
import type { ClaimedDelivery } from '../queue/delivery-queue.ts';

interface Held {
  readonly delivery: ClaimedDelivery;
  readonly claimedAt: number;
}

export interface HeldDeliveriesOptions {
  /** At most this many held for one endpoint (configuration). */
  readonly maxPerEndpoint: number;
  /** How long a delivery may be held before it is sent; older ones are given back. */
  readonly maxAgeMs: number;
}

export interface HeldDeliveries {
  hold(deliveries: readonly ClaimedDelivery[], now: number): void;
  /** Offers each endpoint's held deliveries, oldest first, to `start` until it refuses one; those it started are no longer held. */
  dispatch(start: (delivery: ClaimedDelivery) => boolean): void;
  /** Takes those held longer than the bound, to give back. */
  takeStale(now: number): ClaimedDelivery[];
  /** An endpoint's request ended at `now`: what it may be given ahead follows from these. */
  finished(configId: string, now: number): void;
  /** How many `configId` should have held ahead now. */
  target(configId: string, now: number): number;
  /** The endpoints with any held or with a pace. */
  endpoints(): string[];
  /** Whether `configId` has run low: half of what it should have ahead, or nothing. */
  low(configId: string, now: number): boolean;
  byConfig(configId: string): number;
  byCompany(companyId: number): number;
  size(): number;
  /** The ids held, for the lease renewal. */
  ids(): string[];
}

export function createHeldDeliveries({ maxPerEndpoint, maxAgeMs }: HeldDeliveriesOptions): HeldDeliveries {
  const queues = new Map<string, Held[]>();
  const perCompany = new Map<number, number>();
  /** Per endpoint: requests finished in the current span of maxAgeMs and in the one before it. */
  const pace = new Map<string, { since: number; current: number; previous: number }>();
  let count = 0;

  const countCompany = (companyId: number, by: number) => {
    const n = (perCompany.get(companyId) ?? 0) + by;
    if (n > 0) perCompany.set(companyId, n);
    else perCompany.delete(companyId);
  };

  function paceOf(configId: string, now: number) {
    let p = pace.get(configId);
    if (!p) return undefined;
    if (now - p.since >= 2 * maxAgeMs) {
      pace.delete(configId);
      return undefined;
    }
    if (now - p.since >= maxAgeMs) {
      p = { since: now, current: 0, previous: p.current };
      pace.set(configId, p);
    }
    return p;
  }

  /** Half of what it finished in the last full span: it sends those well before they go stale. */
  const target = (configId: string, now: number) => {
    const p = paceOf(configId, now);
    return p ? Math.min(maxPerEndpoint, Math.floor(Math.max(p.previous, p.current) / 2)) : 0;
  };

  function remove(configId: string, queue: Held[], from: number, n: number): Held[] {
    const removed = queue.splice(from, n);
    if (queue.length === 0) queues.delete(configId);
    count -= removed.length;
    for (const { delivery } of removed) countCompany(delivery.config.companyId, -1);
    return removed;
  }

  return {
    hold(deliveries, now) {
      for (const delivery of deliveries) {
        const queue = queues.get(delivery.config.id) ?? [];
        queue.push({ delivery, claimedAt: now });
        queues.set(delivery.config.id, queue);
        countCompany(delivery.config.companyId, 1);
        count += 1;
      }
    },
    dispatch(start) {
      for (const [configId, queue] of queues) {
        let n = 0;
        for (const { delivery } of queue) {
          if (!start(delivery)) break;
          n += 1;
        }
        if (n > 0) remove(configId, queue, 0, n);
      }
    },
    takeStale(now) {
      const stale: ClaimedDelivery[] = [];
      for (const [configId, queue] of queues) {
        // Held in claim order: the stale ones are at the front.
        let n = 0;
        while (n < queue.length && now - (queue[n]?.claimedAt ?? now) > maxAgeMs) n += 1;
        if (n > 0) stale.push(...remove(configId, queue, 0, n).map(({ delivery }) => delivery));
      }
      return stale;
    },
    finished(configId, now) {
      const p = paceOf(configId, now);
      if (p) p.current += 1;
      else pace.set(configId, { since: now, current: 1, previous: 0 });
    },
    target,
    endpoints: () => [...new Set([...queues.keys(), ...pace.keys()])],
    low(configId, now) {
      const held = queues.get(configId)?.length ?? 0;
      return held === 0 || held <= Math.floor(target(configId, now) / 2);
    },
    byConfig: (configId) => queues.get(configId)?.length ?? 0,
    byCompany: (companyId) => perCompany.get(companyId) ?? 0,
    size: () => count,
    ids: () => [...queues.values()].flatMap((queue) => queue.map(({ delivery }) => delivery.id)),
  };
}
