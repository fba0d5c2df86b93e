// What one deliverer has in flight, by configuration and by company, and the rate limits of the
// rate-limited configurations among them: what its claims are bounded by (the queue's claim takes
// the maps as they are), kept as each request starts and ends.
import { configCap } from '../queue/claimed-deliveries.ts';
export interface InFlightConfig {
  readonly id: string;
  readonly companyId: number;
  readonly rateLimitPerSecond: number | null;
}

/** A deliverer's in-flight limits (DeliverySettings). */
export interface InFlightLimits {
  readonly maxInFlight: number;
  readonly maxInFlightPerEndpoint: number;
  readonly maxInFlightPerCompany: number;
}

export interface InFlightTally {
  /** Requests in flight in all. */
  readonly total: number;
  readonly byConfig: ReadonlyMap<string, number>;
  readonly byCompany: ReadonlyMap<number, number>;
  /** The rate limits of the rate-limited configurations in flight: a lower bound than perConfig on their claims. */
  readonly rateCaps: ReadonlyMap<string, number>;
  /**
   * A request to `config` starts if it fits under the limits (in all, per endpoint or its rate a
   * second, per company): whether it did.
   */
  admit(config: InFlightConfig, limits: InFlightLimits): boolean;
  /** A request to `config` starts. */
  add(config: InFlightConfig): void;
  /** A request to `config` ended; how many of its configuration's are still in flight. */
  remove(config: InFlightConfig): number;
}

export function createInFlightTally(): InFlightTally {
  const byConfig = new Map<string, number>();
  const byCompany = new Map<number, number>();
  const rateCaps = new Map<string, number>();
  let total = 0;
  function add({ id, companyId, rateLimitPerSecond }: InFlightConfig): void {
    total += 1;
    byConfig.set(id, (byConfig.get(id) ?? 0) + 1);
    byCompany.set(companyId, (byCompany.get(companyId) ?? 0) + 1);
    if (rateLimitPerSecond !== null) rateCaps.set(id, rateLimitPerSecond);
  }
  return {
    get total() {
      return total;
    },
    byConfig,
    byCompany,
    rateCaps,
    add,
    admit(config, limits) {
      if (total >= limits.maxInFlight) return false;
      if ((byConfig.get(config.id) ?? 0) >= configCap(limits.maxInFlightPerEndpoint, config.rateLimitPerSecond)) return false;
      if ((byCompany.get(config.companyId) ?? 0) >= limits.maxInFlightPerCompany) return false;
      add(config);
      return true;
    },
    remove({ id, companyId }) {
      total -= 1;
      const left = (byConfig.get(id) ?? 1) - 1;
      if (left > 0) byConfig.set(id, left);
      else {
        byConfig.delete(id);
        rateCaps.delete(id);
      }
      const companyLeft = (byCompany.get(companyId) ?? 1) - 1;
      if (companyLeft > 0) byCompany.set(companyId, companyLeft);
      else byCompany.delete(companyId);
      return left;
    },
  };
}

/** Two counts added key by key (what is in flight and what is held, for a claim's bounds). */
export function summed<K>(a: ReadonlyMap<K, number>, b: ReadonlyMap<K, number>): Map<K, number> {
  const sum = new Map(a);
  for (const [key, n] of b) sum.set(key, (sum.get(key) ?? 0) + n);
  return sum;
}
