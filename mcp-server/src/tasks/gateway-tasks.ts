// The gateway's MCP tasks, assembled: their store, the changes made to them (counted by status),
// the runner of the tasks at this replica and the caller's requests about them.
import type { Logger, Timers } from '@platform/tool-sdk';
import type { DelegatedTokenSource, ToolGateway } from '../mcp/tool-gateway.ts';
import type { ToolCatalog } from '../remote-tools.ts';
import { createSealedBox } from '../sealed-box.ts';
import type { McpServerSettings } from '../settings.ts';
import { createTaskChanges } from './task-changes.ts';
import type { TaskStatus, TaskStore } from './task-records.ts';
import { createTaskRunner } from './task-runner.ts';
import { createTasks, type Tasks } from './tasks.ts';

export interface GatewayTasksOptions {
  readonly settings: McpServerSettings;
  readonly store: TaskStore;
  readonly gateway: ToolGateway;
  readonly catalog: () => ToolCatalog;
  readonly delegatedTokens: DelegatedTokenSource;
  /** Told of each status a change made here gave a task: the gateway's metrics. */
  readonly counted: (status: TaskStatus) => void;
  readonly logger: Logger;
  readonly clock: () => number;
  readonly timers?: Timers | undefined;
}

export function createGatewayTasks(options: GatewayTasksOptions): Tasks {
  const { settings, store, catalog, logger, clock } = options;
  const changes = createTaskChanges(store, clock, logger, options.counted);
  // Fresh delegated tokens travel between replicas sealed under a key of the gateway's own.
  const box = createSealedBox(settings.clientSecret, 'task tokens');
  const time = { clock, ...(options.timers && { timers: options.timers }) };
  const runner = createTaskRunner({
    store,
    changes,
    gateway: options.gateway,
    catalog,
    box,
    settings: settings.tasks,
    settle: { policy: { allowLoopbackHttp: settings.elicitationLoopbackHttp }, maxRounds: settings.inputMaxRounds, keepMs: settings.tasks.keepMs },
    logger,
    ...time,
  });
  return createTasks({
    store,
    changes,
    runner,
    catalog,
    delegatedTokens: options.delegatedTokens,
    box,
    heartbeatMs: settings.tasks.heartbeatMs,
    logger,
    ...time,
  });
}
