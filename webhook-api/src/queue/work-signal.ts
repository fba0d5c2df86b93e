// Work announced in this process (ingest, a resend, a batch formed), so its deliverer wakes at once
// instead of at its next poll.
import { EventEmitter } from 'node:events';

export interface WorkSignal {
  readonly announce: () => void;
  readonly onWork: (listener: () => void) => () => void;
}

export function createWorkSignal(): WorkSignal {
  const work = new EventEmitter();
  return {
    announce: () => work.emit('work'),
    onWork: (listener) => {
      work.on('work', listener);
      return () => work.off('work', listener);
    },
  };
}
