// Deliveries a deliverer claimed ahead of its free slots, under its lease: one claim statement then
// serves several rounds of sends. Kept per endpoint in the order claimed, counted per configuration
// and per company (the next claim's bounds add them to what is in flight), and taken as slots free.
// A held delivery is rechecked by the queue just before it is sent (queue.settleAndRecheck), since its
// configuration may have been deleted, or its device unlinked, while it was held; a point read ahead
// from its endpoint's log goes without one within the read-ahead window (store/log-read-ahead.ts).
import type { ClaimedDelivery, ClaimRequest } from '../queue/delivery-queue.ts';
import { summed, type InFlightLimits, type InFlightTally } from './in-flight-tally.ts';

export interface HeldClaims {
  /** How many are held. */
  readonly size: number;
  /** Held per configuration and per company. */
  readonly byConfig: ReadonlyMap<string, number>;
  readonly byCompany: ReadonlyMap<number, number>;
  /** The rate limits of the rate-limited configurations held: what bounds their next claim. */
  readonly rateCaps: ReadonlyMap<string, number>;
  add(delivery: ClaimedDelivery): void;
  /**
   * Takes, endpoint by endpoint and oldest first in each, at most `room` deliveries that `fits`
   * accepts (it counts each one it accepts: the caller's in-flight bounds); an endpoint whose next
   * does not fit is passed over.
   */
  take(room: number, fits: (delivery: ClaimedDelivery) => boolean): ClaimedDelivery[];
  /** Holds `deliveries` again, taken and not sent, ahead of those of their endpoints still held (in the order given). */
  putBack(deliveries: readonly ClaimedDelivery[]): void;
  /** Every one held, and none held any more (a stop: their leases are given back). */
  clear(): ClaimedDelivery[];
  /** Points read ahead from endpoint logs among them (store/log-read-ahead.ts). */
  readonly logged: number;
  /** Lets go of the points of `configId`'s log it holds (its log set back to before them): the ones let go. */
  letGoOfLog(configId: string): ClaimedDelivery[];
}

export function createHeldClaims(): HeldClaims {
  const queues = new Map<string, ClaimedDelivery[]>();
  const byConfig = new Map<string, number>();
  const byCompany = new Map<number, number>();
  const rateCaps = new Map<string, number>();
  let size = 0;
  let logged = 0;

  const count = <K>(map: Map<K, number>, key: K, by: number) => {
    const n = (map.get(key) ?? 0) + by;
    if (n > 0) map.set(key, n);
    else map.delete(key);
  };

  /** Holds `delivery` at the end of its endpoint's queue, or at its start. */
  const hold = (delivery: ClaimedDelivery, where: 'first' | 'last') => {
    const its = queues.get(delivery.config.id);
    if (!its) queues.set(delivery.config.id, [delivery]);
    else if (where === 'last') its.push(delivery);
    else its.unshift(delivery);
    count(byConfig, delivery.config.id, 1);
    count(byCompany, delivery.config.companyId, 1);
    if (delivery.config.rateLimitPerSecond !== null) rateCaps.set(delivery.config.id, delivery.config.rateLimitPerSecond);
    size += 1;
    if (delivery.logged) logged += 1;
  };

  return {
    get size() {
      return size;
    },
    byConfig,
    byCompany,
    rateCaps,
    add(delivery) {
      hold(delivery, 'last');
    },
    putBack(deliveries) {
      for (const delivery of [...deliveries].reverse()) hold(delivery, 'first');
    },
    take(room, fits) {
      const taken: ClaimedDelivery[] = [];
      for (const [configId, its] of queues) {
        let n = 0;
        while (n < its.length && taken.length < room) {
          const next = its[n];
          if (!next || !fits(next)) break;
          taken.push(next);
          n += 1;
        }
        if (n === 0) continue;
        const first = its[0];
        if (first) {
          count(byConfig, configId, -n);
          count(byCompany, first.config.companyId, -n);
        }
        size -= n;
        logged -= its.slice(0, n).filter((delivery) => delivery.logged).length;
        if (n === its.length) {
          queues.delete(configId);
          rateCaps.delete(configId);
        } else its.splice(0, n);
        if (taken.length >= room) break;
      }
      return taken;
    },
    clear() {
      const all = [...queues.values()].flat();
      queues.clear();
      byConfig.clear();
      byCompany.clear();
      rateCaps.clear();
      size = 0;
      logged = 0;
      return all;
    },
    get logged() {
      return logged;
    },
    letGoOfLog(configId) {
      const its = queues.get(configId) ?? [];
      const going = its.filter((delivery) => delivery.logged);
      if (going.length === 0) return [];
      const kept = its.filter((delivery) => !delivery.logged);
      const first = its[0];
      if (first) {
        count(byConfig, configId, -going.length);
        count(byCompany, first.config.companyId, -going.length);
      }
      size -= going.length;
      logged -= going.length;
      if (kept.length > 0) queues.set(configId, kept);
      else {
        queues.delete(configId);
        rateCaps.delete(configId);
      }
      return going;
    },
  };
}

/**
 * A claim for `ahead` rounds of a deliverer's slots: its limits multiplied by `ahead`, less what it
 * has in hand (in flight and held); a rate-limited configuration's bound stays its rate a second.
 */
export function aheadClaimRequest(options: {
  readonly owner: string;
  readonly now: number;
  readonly limit: number;
  readonly settings: InFlightLimits & { readonly leaseMs: number };
  readonly ahead: number;
  readonly tally: InFlightTally;
  readonly held: HeldClaims;
}): ClaimRequest {
  const { settings, ahead, tally, held } = options;
  return {
    owner: options.owner,
    leaseMs: settings.leaseMs,
    now: options.now,
    limit: options.limit,
    perConfig: settings.maxInFlightPerEndpoint * ahead,
    perCompany: settings.maxInFlightPerCompany * ahead,
    inFlight: summed(tally.byConfig, held.byConfig),
    perConfigCaps: new Map([...tally.rateCaps, ...held.rateCaps]),
    inFlightByCompany: summed(tally.byCompany, held.byCompany),
  };
}
