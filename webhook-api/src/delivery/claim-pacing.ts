// When a deliverer claims again, and for what. An endpoint's log (queue/endpoint-logs.ts) is read as
// its slots free: from half of them free on, or a quarter where a read takes long against a request,
// so the slots do not run dry while a read is on its way; where the queue reads ahead
// (store/log-read-ahead.ts: a database a round trip away), a round of the slots ahead, read again
// once a round of them has gone, what is held going as slots free. Rows (retries, batches, ordered deliveries) are claimed several rounds ahead
// and again once what an endpoint has in hand is down to half; the rows are looked at only when
// something may have made them due (a wake, a row's slot freed, the deliverer idle), not on every
// refill of a log.
import type { ClaimedDelivery } from '../queue/delivery-queue.ts';
import { summed, type InFlightLimits, type InFlightTally } from './in-flight-tally.ts';
import type { HeldClaims } from './held-claims.ts';
import type { LogRoom } from '../queue/endpoint-logs.ts';

/**
 * How many rounds of its slots a deliverer claims rows at once: one claim statement then serves
 * several rounds of sends, each round rechecked just before it is sent (held-claims.ts).
 */
export const claimAhead = 4;

/** What a request's end calls for. */
export interface AfterRequest {
  /** Claim again (read the logs). */
  readonly claim: boolean;
  /** ...looking at the rows too. */
  readonly rows: boolean;
  /** Send what is held (slots have freed). */
  readonly send: boolean;
}

export interface ClaimPacing {
  /** Logged points in flight: a claim refilling their endpoint is coming. */
  readonly loggedInFlight: number;
  /** A request of `delivery` starts; the function it returns is called when it ends, with what is left. */
  started(delivery: ClaimedDelivery, at: number): (end: { at: number; left: number; total: number }) => AfterRequest;
  /** A claim took `ms`. */
  claimed(ms: number): void;
}

/** A moving average; the first sample as it is. */
const averaged = (average: number, sample: number) => (average === 0 ? sample : average * 0.9 + sample * 0.1);

export function createClaimPacing(settings: InFlightLimits, held: Pick<HeldClaims, 'byConfig'>, logRounds = 1): ClaimPacing {
  const pace = { claimMs: 0, requestMs: 0 };
  let loggedInFlight = 0;
  const perEndpoint = settings.maxInFlightPerEndpoint;
  return {
    get loggedInFlight() {
      return loggedInFlight;
    },
    claimed(ms) {
      pace.claimMs = averaged(pace.claimMs, ms);
    },
    started(delivery, startedAt) {
      const logged = delivery.logged === true;
      if (logged) loggedInFlight += 1;
      return ({ at, left, total }) => {
        let claim = false;
        let rows = false;
        const heldOfIt = held.byConfig.get(delivery.config.id) ?? 0;
        if (logged) {
          loggedInFlight -= 1;
          pace.requestMs = averaged(pace.requestMs, at - startedAt);
          const early = pace.claimMs * 4 > pace.requestMs;
          claim =
            logRounds > 1 ? left + heldOfIt <= perEndpoint * (logRounds - 1) : left <= perEndpoint - Math.max(1, Math.floor(perEndpoint / (early ? 4 : 2)));
        } else if (left + heldOfIt === Math.floor((perEndpoint * claimAhead) / 2)) claim = rows = true;
        if (total === 0) claim = rows = true;
        // Held deliveries go once the endpoint is down to half its slots, or the deliverer to half of its own (crossing it, or empty).
        // A point read ahead goes as soon as its endpoint's slot frees.
        const send = claim || (logged && heldOfIt > 0) || left <= Math.floor(perEndpoint / 2) || total === Math.floor(settings.maxInFlight / 2) || total === 0;
        return { claim, rows, send };
      };
    },
  };
}

/**
 * The room a claim gives the endpoint logs: the deliverer's free slots now, and `rounds` - 1 rounds
 * of them ahead where the queue reads ahead, less what it holds of the logs.
 */
export function logRoomOf(settings: InFlightLimits, tally: InFlightTally, held: Pick<HeldClaims, 'byConfig' | 'byCompany' | 'logged'>, rounds = 1): LogRoom {
  return {
    limit: settings.maxInFlight * rounds - tally.total - held.logged,
    perConfig: settings.maxInFlightPerEndpoint * rounds,
    inFlight: summed(tally.byConfig, held.byConfig),
    perCompany: settings.maxInFlightPerCompany * rounds,
    inFlightByCompany: summed(tally.byCompany, held.byCompany),
    // One endpoint taken anew at a time: deliverers looking for work together share the endpoints.
    newCursors: 1,
  };
}
