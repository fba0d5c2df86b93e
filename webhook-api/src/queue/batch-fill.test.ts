import { describe, expect, it } from 'vitest';
import { fillBatches, groupKey, maxTraceContextsPerBatch, withTraceContext, type OpenBatch } from './batch-fill.ts';

const rules = { maxPoints: 3, lingerMs: 1000 };
const now = 50_000;
const ids = () => {
  let n = 0;
  return () => `new-${++n}`;
};
const group = (count: number, m = 'temperature') => ({ cfg: 'c1', g: 'gw', m, count });
const openBatch = (pointCount: number, traceContext: string | null = null): Map<string, OpenBatch> =>
  new Map([[groupKey('c1', 'gw', 'temperature'), { id: 'open-1', pointCount, traceContext }]]);

describe('fillBatches', () => {
  it('opens a batch for a group without one, due when its linger ends', () => {
    const fill = fillBatches([group(2)], new Map(), rules, now, 'tp-1', ids());
    expect(fill).toEqual({
      joined: [],
      created: [{ id: 'new-1', cfg: 'c1', g: 'gw', m: 'temperature', pointCount: 2, open: true, dueAt: now + 1000, traceContext: 'tp-1' }],
      assigned: [['new-1', 'new-1']],
      changedDue: true,
    });
  });

  it('fills the open batch first, closes it when full, then makes full batches due at once and leaves the rest open', () => {
    const fill = fillBatches([group(6)], openBatch(2), rules, now, null, ids());
    expect(fill.joined).toEqual([{ id: 'open-1', pointCount: 3, open: false, traceContext: null }]);
    expect(fill.created.map(({ id, pointCount, open, dueAt }) => ({ id, pointCount, open, dueAt }))).toEqual([
      { id: 'new-1', pointCount: 3, open: false, dueAt: now },
      { id: 'new-2', pointCount: 2, open: true, dueAt: now + 1000 },
    ]);
    expect(fill.assigned).toEqual([['open-1', 'new-1', 'new-1', 'new-1', 'new-2', 'new-2']]);
    expect(fill.changedDue).toBe(true);
  });

  it('tells no deliverer of points that only join an open batch', () => {
    const fill = fillBatches([group(1)], openBatch(1, 'tp-1'), rules, now, 'tp-2', ids());
    expect(fill).toEqual({
      joined: [{ id: 'open-1', pointCount: 2, open: true, traceContext: 'tp-1 tp-2' }],
      created: [],
      assigned: [['open-1']],
      changedDue: false,
    });
  });

  it('closes an open batch that is full already (the batch size was lowered), and opens another', () => {
    const fill = fillBatches([group(1)], openBatch(5, 'tp-1'), rules, now, 'tp-2', ids());
    expect(fill.joined).toEqual([{ id: 'open-1', pointCount: 5, open: false, traceContext: 'tp-1' }]);
    expect(fill.created.map((b) => [b.id, b.pointCount, b.open])).toEqual([['new-1', 1, true]]);
    expect(fill.assigned).toEqual([['new-1']]);
  });

  it('keeps each group apart, in the order given', () => {
    const fill = fillBatches([group(1, 'a'), group(1, 'b')], new Map(), rules, now, null, ids());
    expect(fill.created.map((b) => [b.m, b.id])).toEqual([
      ['a', 'new-1'],
      ['b', 'new-2'],
    ]);
    expect(fill.assigned).toEqual([['new-1'], ['new-2']]);
  });
});

describe('a batch’s trace contexts', () => {
  it('adds each ingest’s once, none when there is none, and at most a bounded number', () => {
    expect(withTraceContext(null, null)).toBeNull();
    expect(withTraceContext(null, 'a')).toBe('a');
    expect(withTraceContext('a', 'a')).toBe('a');
    expect(withTraceContext('a', 'b')).toBe('a b');
    let contexts: string | null = null;
    for (let i = 0; i < maxTraceContextsPerBatch + 5; i++) contexts = withTraceContext(contexts, `tp-${i}`);
    expect(contexts?.split(' ')).toHaveLength(maxTraceContextsPerBatch);
    expect(contexts?.split(' ')[0]).toBe('tp-0');
  });
});
