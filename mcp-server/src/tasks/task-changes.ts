// Changing a task: read it, work out its next state, write that if nobody changed it meanwhile,
// and try again if somebody did. Every change of a task's status goes through here, so each is
// counted (the gateway's metrics) and stamped with its time once.
import type { Logger } from '@platform/tool-sdk';
import type { TaskRecord, TaskStatus, TaskStore } from './task-records.ts';

/** What a change makes of the task as it is now; undefined leaves it as it is. */
export type TaskChange = (record: TaskRecord) => Omit<TaskRecord, 'version' | 'updatedAt'> | undefined;

export interface TaskChanges {
  /** The task after the change (or as it is, when the change left it); undefined when it is gone. */
  change(id: string, change: TaskChange): Promise<TaskRecord | undefined>;
}

/** Attempts at one change before it gives up: each lost attempt is another replica's change landing first. */
const maxAttempts = 8;

export function createTaskChanges(store: TaskStore, clock: () => number, logger: Logger, counted: (status: TaskStatus) => void): TaskChanges {
  return {
    async change(id, change) {
      for (let attempt = 0; attempt < maxAttempts; attempt += 1) {
        const current = await store.get(id);
        if (!current) return undefined;
        const next = change(current);
        if (!next) return current;
        const written: TaskRecord = { ...next, version: current.version + 1, updatedAt: Math.max(clock(), current.updatedAt) };
        if (await store.replace(written, current.version)) {
          if (written.status !== current.status) counted(written.status);
          return written;
        }
      }
      logger.warn({ taskId: id }, 'a task changed too often to be changed; left as it is');
      return store.get(id);
    },
  };
}
