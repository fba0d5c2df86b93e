import { describe, expect, it } from 'vitest';
import { storedConfig } from '../../test/stored-config.ts';
import { toClaimedDeliveries } from './claimed-deliveries.ts';

const config = { ...storedConfig({ url: 'http://127.0.0.1:9/hook' }), id: 'c' };
const row = (id: string, position: number, due: number) => ({
  id,
  webhook_id: `msg_${id}`,
  webhook_config_id: 'c',
  mode: 'Realtime',
  gateway_id: 'gw-1',
  measurement: 'm',
  attempts: 0,
  accepted_at: due,
  next_attempt_at: due,
  trace_context: null,
  stream: null,
  position,
});

describe('claimed rows as deliveries', () => {
  // An ingest's time is taken before it waits for its endpoint log's lock: a later position may carry an earlier time.
  const claimed = [row('b', 2, 1000), row('a', 1, 1001), row('c', 3, 999)];
  const points = new Map(['a', 'b', 'c'].map((id) => [id, [`{"p":"${id}"}`]]));

  it('orders claimed rows by when they are due, then by position', () => {
    expect(toClaimedDeliveries({ claimed, configs: new Map([['c', config]]), points }).map((d) => d.id)).toEqual(['c', 'b', 'a']);
  });

  it('orders points of an endpoint log by their position alone', () => {
    expect(toClaimedDeliveries({ claimed, configs: new Map([['c', config]]), points }, true).map((d) => d.id)).toEqual(['a', 'b', 'c']);
  });
});
