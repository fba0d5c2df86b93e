// What one deliverer has in flight, by configuration and by company, and the rate limits of the
// rate-limited configurations among them: what its claims are bounded by (the queue's claim takes
// the maps as they are), kept as each request starts and ends.
export interface InFlightConfig {
  readonly id: string;
  readonly companyId: number;
  readonly rateLimitPerSecond: number | null;
}

export interface InFlightTally {
  readonly byConfig: ReadonlyMap<string, number>;
  readonly byCompany: ReadonlyMap<number, number>;
  /** The rate limits of the rate-limited configurations in flight: a lower bound than perConfig on their claims. */
  readonly rateCaps: ReadonlyMap<string, number>;
  /** The three as the queue's claim takes them. */
  readonly claimBounds: {
    readonly inFlight: ReadonlyMap<string, number>;
    readonly perConfigCaps: ReadonlyMap<string, number>;
    readonly inFlightByCompany: ReadonlyMap<number, number>;
  };
  /** A request to `config` starts. */
  add(config: InFlightConfig): void;
  /** A request to `config` ended; how many of its configuration's are still in flight. */
  remove(config: InFlightConfig): number;
}

export function createInFlightTally(): InFlightTally {
  const byConfig = new Map<string, number>();
  const byCompany = new Map<number, number>();
  const rateCaps = new Map<string, number>();
  return {
    byConfig,
    byCompany,
    rateCaps,
    claimBounds: { inFlight: byConfig, perConfigCaps: rateCaps, inFlightByCompany: byCompany },
    add({ id, companyId, rateLimitPerSecond }) {
      byConfig.set(id, (byConfig.get(id) ?? 0) + 1);
      byCompany.set(companyId, (byCompany.get(companyId) ?? 0) + 1);
      if (rateLimitPerSecond !== null) rateCaps.set(id, rateLimitPerSecond);
    },
    remove({ id, companyId }) {
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
