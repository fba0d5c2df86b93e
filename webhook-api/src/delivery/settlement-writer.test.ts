import { setImmediate as nextTurn } from 'node:timers/promises';
import { createLogger } from '@platform/tool-sdk';
import { describe, expect, it, vi } from 'vitest';
import type { DeliveryQueue, Settlement } from '../queue/delivery-queue.ts';
import { createSettlementWriter } from './settlement-writer.ts';
import { settlement } from '../../test/settlements.ts';

function writerOn(options: { leaveForClaim?: () => boolean; holdMs?: number } = {}) {
  const writes: string[][] = [];
  const queue = {
    settle: (_owner: string, chunk: readonly Settlement[]) => {
      writes.push(chunk.map((s) => s.id));
      return Promise.resolve(new Set(chunk.map((s) => s.id)));
    },
  } as unknown as DeliveryQueue;
  let drained = 0;
  const writer = createSettlementWriter({
    queue,
    owner: 'a',
    log: createLogger({ name: 'test', level: 'silent' }),
    now: () => 1,
    retryDelayMs: 1,
    givingUp: () => false,
    onDrained: () => (drained += 1),
    ...options,
  });
  return { writer, writes, drained: () => drained };
}

describe('the settlement writer', () => {
  it('writes the settlements of one turn together, in the next', async () => {
    const { writer, writes } = writerOn();
    writer.add(settlement('1'));
    writer.add(settlement('2'));
    expect(writer.busy()).toBe(true);
    await nextTurn();
    await writer.flush();
    expect(writes).toEqual([['1', '2']]);
    expect(writer.busy()).toBe(false);
  });

  it('leaves what waits to a claim that takes it, and is drained once the claim answers for it', async () => {
    let claiming = true;
    const { writer, writes, drained } = writerOn({ leaveForClaim: () => claiming });
    writer.add(settlement('1'));
    await nextTurn();
    expect(writes).toEqual([]);
    const taken = writer.take();
    expect(taken.map((s) => s.id)).toEqual(['1']);
    expect(writer.busy()).toBe(true);
    writer.written(taken, new Set(['1']));
    expect(writer.busy()).toBe(false);
    expect(drained()).toBe(1);
    claiming = false;
  });

  it('writes on its own, after holdMs, what it left for a claim that did not come', async () => {
    const { writer, writes, drained } = writerOn({ leaveForClaim: () => true, holdMs: 30 });
    writer.add(settlement('1'));
    await nextTurn();
    expect(writes).toEqual([]);
    expect(writer.busy()).toBe(true);
    await vi.waitFor(() => {
      expect(writes).toEqual([['1']]);
    });
    await vi.waitFor(() => {
      expect(writer.busy()).toBe(false);
    });
    expect(drained()).toBeGreaterThan(0);
  });

  it('writes on its own what a claim took and gave back', async () => {
    const { writer, writes } = writerOn();
    writer.add(settlement('1'));
    const taken = writer.take();
    writer.giveBack(taken);
    await nextTurn();
    await writer.flush();
    expect(writes).toEqual([['1']]);
    expect(writer.busy()).toBe(false);
  });
});
