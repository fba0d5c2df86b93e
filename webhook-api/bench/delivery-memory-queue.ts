// The delivery benchmark's bound on any queue design: a queue that serves copies of one logged point
// (claimed once from the real queue, so the deliverer builds the same request) from memory, within
// the room each claim gives the endpoint logs, and writes nothing. The deliverer on it does all of
// its own work (pacing, limits, signing, sending, settling in memory) and no database work at all.
import type { ClaimedDelivery, ClaimRequest, DeliveryQueue } from '../src/queue/delivery-queue.ts';
import { logRoomOf } from '../src/queue/endpoint-logs.ts';

export interface MemoryQueue {
  readonly queue: DeliveryQueue;
  /** Queues `count` more copies of the point. */
  fill(count: number): void;
}

/** `base` with its deliverer's calls answered from memory: copies of `point`, each its own delivery. */
export function memoryQueue(base: DeliveryQueue, point: ClaimedDelivery): MemoryQueue {
  let left = 0;
  let made = 0;
  const take = (request: ClaimRequest): ClaimedDelivery[] => {
    const room = logRoomOf(request);
    const taken = Math.max(0, Math.min(left, room.limit, room.perConfig - (room.inFlight.get(point.config.id) ?? 0)));
    left -= taken;
    return Array.from({ length: taken }, () => ({ ...point, id: `memory-${made++}`, points: [...point.points], logged: true }));
  };
  const written = (settlements: readonly { id: string }[]) => new Set(settlements.map((settlement) => settlement.id));
  return {
    queue: {
      ...base,
      claim: (request) => Promise.resolve(take(request)),
      settle: (_owner, settlements) => Promise.resolve(written(settlements)),
      settleAndClaim: (settlements, request) => Promise.resolve({ settled: written(settlements), claimed: take(request) }),
      settleAndRecheck: (settlements) => Promise.resolve({ settled: written(settlements), sendable: new Map(), setBack: new Set() }),
      renewLeases: (_owner, ids) => Promise.resolve(ids.length),
      release: () => Promise.resolve(0),
      nextDueAt: () => Promise.resolve(undefined),
      logReadAhead: undefined,
    },
    fill(count) {
      left += count;
    },
  };
}
