// The tasks of one gateway, in its memory: what a gateway without a database keeps (they end with
// the process, as its registrations do).
import type { Clock } from '@platform/tool-sdk';
import { systemClock } from '@platform/tool-sdk/internal';
import { openStatuses, type TaskRecord, type TaskStore } from './task-records.ts';

export function createMemoryTaskStore(clock: Clock = systemClock): TaskStore {
  const tasks = new Map<string, TaskRecord>();
  const listeners = new Set<(id: string) => void>();
  const announce = (id: string) => {
    // As a database's notification would: after the change, never inside it.
    queueMicrotask(() => {
      for (const listener of listeners) listener(id);
    });
  };
  const live = (record: TaskRecord | undefined) => (record && record.createdAt + record.ttlMs >= clock() ? record : undefined);

  return {
    create(record, limits) {
      let mine = 0;
      let all = 0;
      for (const task of tasks.values()) {
        if (!openStatuses.has(task.status) || !live(task)) continue;
        all += 1;
        if (task.owner.callerId === record.owner.callerId) mine += 1;
      }
      if (mine >= limits.perCaller) return Promise.resolve('caller-limit');
      if (all >= limits.total) return Promise.resolve('total-limit');
      tasks.set(record.id, record);
      return Promise.resolve('created');
    },

    get(id) {
      return Promise.resolve(live(tasks.get(id)));
    },

    replace(next, version) {
      const current = tasks.get(next.id);
      if (!current || current.version !== version) return Promise.resolve(false);
      tasks.set(next.id, { ...next, runnerSeenAt: Math.max(current.runnerSeenAt, next.runnerSeenAt) });
      announce(next.id);
      return Promise.resolve(true);
    },

    heartbeat(runner, ids) {
      const now = clock();
      const seen: TaskRecord[] = [];
      for (const id of ids) {
        const task = tasks.get(id);
        if (!task) continue;
        const marked = task.runner === runner ? { ...task, runnerSeenAt: now } : task;
        tasks.set(id, marked);
        seen.push(marked);
      }
      return Promise.resolve(seen);
    },

    purge(now) {
      let purged = 0;
      for (const [id, task] of tasks) {
        if (task.createdAt + task.ttlMs >= now) continue;
        tasks.delete(id);
        purged += 1;
      }
      return Promise.resolve(purged);
    },

    listen(listener) {
      listeners.add(listener);
      return Promise.resolve(() => {
        listeners.delete(listener);
        return Promise.resolve();
      });
    },

    close() {
      tasks.clear();
      listeners.clear();
      return Promise.resolve();
    },
  };
}
