// The deliverer with a queue that reads endpoint logs ahead (store/log-read-ahead.ts), against a
// scripted queue and a sender whose requests end when the test says: an endpoint's points go in
// log order, so a recheck that sets its log back to before what it holds never sets it back below
// a point already sent.
import { createLogger } from '@platform/tool-sdk';
import { until } from '@platform/tool-sdk/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { storedConfig } from '../../test/stored-config.ts';
import { testDeliverySettings } from '../../test/harness.ts';
import type { ClaimedDelivery, DeliveryQueue, Settlement } from '../queue/delivery-queue.ts';
import { createDeliverer, type Deliverer } from './deliverer.ts';
import type { AttemptResult, WebhookSender } from './outgoing.ts';

const config = { ...storedConfig({ url: 'http://127.0.0.1:9/hook' }), id: 'c' };
const point = (n: number): ClaimedDelivery => ({
  id: `p${String(n)}`,
  webhookId: `msg_p${String(n)}`,
  config,
  mode: 'Realtime',
  gatewayId: 'gw-1',
  measurement: 'm',
  points: [`{"n":${String(n)}}`],
  attempts: 0,
  acceptedAt: Date.now(),
  logged: true,
});
const points = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => point(from + i));

/** A queue whose claims answer `reads` in turn (nothing after), each once `gate` lets it; everything else a no-op that settles what it is given. */
function scriptedQueue(reads: ClaimedDelivery[][], gates: Promise<void>[]) {
  let claims = 0;
  const claim = async (): Promise<ClaimedDelivery[]> => {
    const n = claims++;
    await gates[n];
    return reads[n] ?? [];
  };
  const settled = (settlements: readonly Settlement[]) => new Set(settlements.map((s) => s.id));
  const queue = {
    logReadAhead: { rounds: 2, windowMs: 60_000 },
    claim,
    settleAndClaim: async (settlements: readonly Settlement[]) => ({ settled: settled(settlements), claimed: await claim() }),
    settle: (_owner: string, settlements: readonly Settlement[]) => Promise.resolve(settled(settlements)),
    settleAndRecheck: (settlements: readonly Settlement[], _owner: string, held: readonly { id: string }[]) =>
      Promise.resolve({ settled: settled(settlements), sendable: new Map(held.map((h) => [h.id, config])), setBack: new Set<string>() }),
    renewLeases: () => Promise.resolve(0),
    release: () => Promise.resolve(0),
    nextDueAt: () => Promise.resolve(undefined),
    prune: () => Promise.resolve(0),
    pruneIngestKeys: () => Promise.resolve(0),
    expireWaiting: () => Promise.resolve(0),
    releaseHeadless: () => Promise.resolve(0),
    onWork: () => () => undefined,
    onEndpointDisabled: () => () => undefined,
  };
  return { queue: queue as unknown as DeliveryQueue, claims: () => claims };
}

/** A sender that records what it was given, in order, and answers 200 when the test ends a request. */
function heldSender() {
  const sent: string[] = [];
  const waiting: (() => void)[] = [];
  const sender: WebhookSender = {
    send: (delivery, signal) => {
      sent.push(delivery.points.join(''));
      return new Promise<AttemptResult>((resolve) => {
        waiting.push(() => {
          resolve({ outcome: 'delivered', status: 200, durationMs: 1, responsePrefix: '' });
        });
        signal?.addEventListener('abort', () => {
          resolve({ outcome: 'retrying', status: null, error: 'stopped', retryAfterMs: undefined, durationMs: 1, responsePrefix: '' });
        });
      });
    },
    close: () => Promise.resolve(),
  };
  return {
    sender,
    sent: () => sent.map((text) => (JSON.parse(text) as { n: number }).n),
    end: (n: number) => {
      waiting.splice(0, n).forEach((end) => {
        end();
      });
    },
  };
}

describe('a deliverer reading endpoint logs ahead', () => {
  let deliverer: Deliverer | undefined;
  afterEach(async () => {
    await deliverer?.stop(0);
  });
  /** A deliverer on `queue` with 4 slots an endpoint (no poll: it looks for work when told), once it has sent its first round. */
  async function started(queue: DeliveryQueue) {
    const { sender, sent, end } = heldSender();
    const settings = { ...testDeliverySettings, maxInFlightPerEndpoint: 4, pollMs: 60_000 };
    deliverer = createDeliverer({ queue, sender, settings, logger: createLogger({ name: 'test', level: 'silent' }) });
    await deliverer.start();
    await until(() => sent().length === 4, 'the first round sent');
    return { deliverer, sent, end };
  }

  it('sends an endpoint’s points in log order: what a read brings goes behind what the endpoint holds, even into slots freed meanwhile', async () => {
    // The endpoint has 4 slots: the first read brings 8 (4 sent, 4 held); a second read, made on a
    // wake while the slots are full, brings 2 more and answers only after 2 requests have ended.
    let openSecondRead!: () => void;
    const secondRead = new Promise<void>((resolve) => {
      openSecondRead = resolve;
    });
    const { queue, claims } = scriptedQueue([points(1, 8), points(9, 10)], [Promise.resolve(), secondRead]);
    const { sent, end } = await started(queue);

    deliverer?.wake();
    await until(() => claims() === 2, 'the second read asked');
    // Two slots free while the read is on its way; its answer comes after.
    end(2);
    await new Promise((resolve) => setTimeout(resolve, 20));
    openSecondRead();
    await until(() => sent().length === 6, 'the freed slots filled');
    for (let left = 4; sent().length < 10; left = 2) {
      end(left);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect(sent()).toEqual(points(1, 10).map((_, i) => i + 1));
  });

  it('sends a point once when a read brings it again while it is held or in flight (its log set back by a recheck whose answer was lost)', async () => {
    const { queue } = scriptedQueue([points(1, 8), [point(3), point(5), point(6)]], [Promise.resolve(), Promise.resolve()]);
    const { sent, end } = await started(queue);
    deliverer?.wake();
    await new Promise((resolve) => setTimeout(resolve, 20));
    for (let i = 0; i < 10; i++) {
      end(4);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect(sent()).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
  });
});
