// A settlement as a deliverer writes it after an attempt, for the queue's tests: delivered unless
// told otherwise (200; any other outcome 500), its first attempt, fields `extra` overrides.
import type { Settlement } from '../src/queue/delivery-queue.ts';

export const settlement = (id: string, outcome: Settlement['outcome'] = 'delivered', extra: Partial<Settlement> = {}): Settlement => ({
  id,
  outcome,
  attempt: 0,
  status: outcome === 'delivered' ? 200 : 500,
  error: null,
  responseBody: '',
  startedAt: 1000,
  durationMs: 1.5,
  pointCount: 1,
  ...extra,
});
