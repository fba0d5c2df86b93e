// What the tests of MCP tasks share: a tool service whose tools run long and call the platform with
// their delegated token at the end; the raw 2026-07-28 client they are asked with is @platform/devtools/modern-request's.
import { createLogger } from '@platform/tool-sdk';
import { defineTool } from '@platform/tool-sdk/tools';
import { toolAppAt } from './harness.ts';
import { setTimeout as sleep } from 'node:timers/promises';
import { z } from 'zod';

/** What each run of a task tool saw: the tokens it held at its start and end, whether it was stopped, what the platform answered at the end. */
export interface TaskRun {
  readonly tool: string;
  readonly startToken: string;
  endToken?: string;
  aborted: boolean;
  platform?: 'ok' | 'refused';
}

export interface TaskProbe {
  readonly runs: TaskRun[];
  readonly address: string;
  close(): Promise<void>;
}

/**
 * A service of fleet-insights with `long_job` (may run as a task: works `ms` in steps, reporting
 * progress, then asks the platform who it is with its token) and `confirm_job` (asks the person
 * first, inside the task).
 */
export async function startTaskProbe(issuer: string, registryAddress: string): Promise<TaskProbe> {
  const app = toolAppAt({ issuer, registryAddress }, 'fleet-insights', 'task-probe', { logger: createLogger({ name: 'task-probe', level: 'silent' }) });
  const runs: TaskRun[] = [];
  const work = async (tool: string, ms: number, ctx: Parameters<Parameters<typeof defineTool>[0]['handler']>[1]) => {
    const run: TaskRun = { tool, startToken: ctx.authToken, aborted: false };
    runs.push(run);
    ctx.signal.addEventListener('abort', () => {
      run.aborted = true;
    });
    const steps = 10;
    for (let step = 1; step <= steps; step += 1) {
      await sleep(ms / steps, undefined, { signal: ctx.signal });
      ctx.progress(step, steps, `step ${step} of ${steps}`);
    }
    run.endToken = ctx.authToken;
    try {
      await ctx.platform.get('/api/me');
      run.platform = 'ok';
    } catch {
      run.platform = 'refused';
    }
    return { done: run.platform, callerId: ctx.callerId };
  };
  app.registerTools([
    defineTool({
      name: 'long_job',
      title: 'Long job',
      description: 'Works a while, then asks the platform who the caller is.',
      inputSchema: z.strictObject({ ms: z.number().int().min(0).max(120_000) }),
      execution: { taskSupport: 'optional' },
      handler: ({ ms }, ctx) => work('long_job', ms, ctx),
    }),
    defineTool({
      name: 'confirm_job',
      title: 'Confirmed job',
      description: 'Asks the person to confirm, then works a while.',
      inputSchema: z.strictObject({ ms: z.number().int().min(0).max(120_000) }),
      execution: { taskSupport: 'required' },
      handler: async ({ ms }, ctx) => {
        const answer = await ctx.elicit({ message: 'Go ahead?', requestedSchema: z.object({ sure: z.boolean() }) }, { key: 'sure' });
        if (answer.action !== 'accept' || !answer.content.sure) return { done: 'declined', callerId: ctx.callerId };
        return work('confirm_job', ms, ctx);
      },
    }),
  ]);
  const serving = await app.serve({ register: true });
  return { runs, address: serving.address, close: () => serving.close(1_000) };
}
