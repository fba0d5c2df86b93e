// How ingest puts Batch points into batches, the same in both dialects and pure: each
// (configuration, gateway, measurement) group's points fill its open batch (the one ingest found
// and holds locked), then new batches of `maxPoints` each; a batch that is full closes and is due
// at once, the last one left part full stays open until its linger ends (counted from its first
// point) or a deliverer claims it. Each batch keeps the trace context of the ingests whose points
// it carries, a bounded number of them.
import { newDeliveryId } from './delivery-ids.ts';

/** How batches are made: at most `maxPoints` points, sent at the latest `lingerMs` after the first. */
export interface BatchRules {
  readonly maxPoints: number;
  readonly lingerMs: number;
}

/** The settings' defaults, for a store opened without them (tests, tools). */
export const defaultBatchRules: BatchRules = Object.freeze({ maxPoints: 100, lingerMs: 1_000 });

/**
 * At most this many ingests' trace contexts a batch keeps, each a span link of its attempts: the
 * first ones, since a batch filled by many one-point ingests would otherwise carry a link per point.
 */
export const maxTraceContextsPerBatch = 32;

/** A group of points of one ingest bound for the same batches, in the order they came. */
export interface BatchGroup {
  readonly cfg: string;
  readonly g: string;
  readonly m: string;
  readonly count: number;
}

/** A group's open batch as ingest found it, under its lock. */
export interface OpenBatch {
  readonly id: string;
  readonly pointCount: number;
  /** Its `trace_context`: traceparents separated by spaces, or null. */
  readonly traceContext: string | null;
}

/** An open batch as its row gives it (id, point_count, trace_context). */
export const openBatchOf = (row: Readonly<Record<string, unknown>>): OpenBatch => ({
  id: String(row.id),
  pointCount: Number(row.point_count),
  traceContext: typeof row.trace_context === 'string' ? row.trace_context : null,
});

/** The open batch's new state: `open` false once it is full, then due at once. */
export interface JoinedBatch {
  readonly id: string;
  readonly pointCount: number;
  readonly open: boolean;
  readonly traceContext: string | null;
}

export interface NewBatch {
  readonly id: string;
  readonly cfg: string;
  readonly g: string;
  readonly m: string;
  readonly pointCount: number;
  readonly open: boolean;
  /** When it is due: at once when full, else when its linger ends. */
  readonly dueAt: number;
  readonly traceContext: string | null;
}

export interface BatchFill {
  readonly joined: JoinedBatch[];
  readonly created: NewBatch[];
  /** For each group (in the order given), the batch of each of its points. */
  readonly assigned: string[][];
  /** Whether any batch was made or became due: what a deliverer must hear of (a point joining an open batch changes nothing it waits for). */
  readonly changedDue: boolean;
}

/** The group's key: its open batch is looked up by it. */
export const groupKey = (cfg: string, g: string, m: string) => JSON.stringify([cfg, g, m]);

/** `contexts` with `traceparent` added, unless it is there or the list is full. */
export function withTraceContext(contexts: string | null, traceparent: string | null): string | null {
  if (traceparent === null) return contexts;
  if (contexts === null || contexts === '') return traceparent;
  const list = contexts.split(' ');
  if (list.includes(traceparent) || list.length >= maxTraceContextsPerBatch) return contexts;
  return `${contexts} ${traceparent}`;
}

export function fillBatches(
  groups: readonly BatchGroup[],
  open: ReadonlyMap<string, OpenBatch>,
  rules: BatchRules,
  now: number,
  traceparent: string | null,
  newId: () => string = newDeliveryId,
): BatchFill {
  const max = Math.max(1, rules.maxPoints);
  const joined: JoinedBatch[] = [];
  const created: NewBatch[] = [];
  const assigned: string[][] = [];
  let changedDue = false;
  for (const group of groups) {
    const ids: string[] = [];
    let left = group.count;
    const current = open.get(groupKey(group.cfg, group.g, group.m));
    if (current) {
      // One that is full already (the batch size was lowered since it opened) only closes, so another can open.
      const taken = Math.min(left, Math.max(0, max - current.pointCount));
      const pointCount = current.pointCount + taken;
      const traceContext = taken > 0 ? withTraceContext(current.traceContext, traceparent) : current.traceContext;
      joined.push({ id: current.id, pointCount, open: pointCount < max, traceContext });
      if (pointCount >= max) changedDue = true;
      for (let i = 0; i < taken; i++) ids.push(current.id);
      left -= taken;
    }
    while (left > 0) {
      const pointCount = Math.min(left, max);
      const id = newId();
      const full = pointCount >= max;
      created.push({
        id,
        cfg: group.cfg,
        g: group.g,
        m: group.m,
        pointCount,
        open: !full,
        dueAt: full ? now : now + rules.lingerMs,
        traceContext: traceparent,
      });
      changedDue = true;
      for (let i = 0; i < pointCount; i++) ids.push(id);
      left -= pointCount;
    }
    assigned.push(ids);
  }
  return { joined, created, assigned, changedDue };
}
