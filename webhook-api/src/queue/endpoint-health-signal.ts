// What this process's deliverer wrote of its endpoints' health, told once the write committed: the
// endpoints it disabled, for the deliverer's log line and metric, and every configuration whose
// health it wrote, for a cache of configurations (the writes themselves are in the database).
import { EventEmitter } from 'node:events';
import type { DisabledEndpoint } from './delivery-queue.ts';
import type { HealthWritten } from './endpoint-health.ts';

export interface EndpointHealthSignal {
  readonly tell: (written: HealthWritten) => void;
  readonly onDisabled: (listener: (endpoint: DisabledEndpoint) => void) => () => void;
  readonly onWritten: (listener: (configIds: readonly string[]) => void) => () => void;
}

export function createEndpointHealthSignal(): EndpointHealthSignal {
  const events = new EventEmitter();
  return {
    tell: ({ written, disabled }) => {
      if (written.length > 0) events.emit('written', written);
      for (const endpoint of disabled) events.emit('disabled', endpoint);
    },
    onDisabled: (listener) => {
      events.on('disabled', listener);
      return () => events.off('disabled', listener);
    },
    onWritten: (listener) => {
      events.on('written', listener);
      return () => events.off('written', listener);
    },
  };
}
