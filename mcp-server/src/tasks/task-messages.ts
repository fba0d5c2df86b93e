// What a task says to its caller when the gateway, not its tool, ends or refuses it.
import type { CallToolResult } from '@modelcontextprotocol/server';
import { clip } from '@platform/tool-sdk/internal';
import type { RemoteTool } from '../remote-tools.ts';
import { failureResult } from '../tool-results/index.ts';
import { shownText } from '../tool-results/shown-text.ts';

/** The status message of a task whose token ran out with nobody polling it. */
export const notPolled = (lifetimeMs: number) =>
  `Cancelled: nobody asked about the task while its delegated token was valid (${Math.round(lifetimeMs / 1000)} s). ` +
  'A task runs only while its person polls it; call the tool again.';

/** A tool's progress as the task's status message: its own words, cleaned, or how far it is. */
export const progressMessage = (progress: number, total: number | null | undefined, message: string) =>
  clip(shownText(message).trim() || (total ? `${Math.round((progress / total) * 100)}% done` : `${progress} done`), 512);

export const textOf = (result: CallToolResult) => result.content.map((block) => (block.type === 'text' ? block.text : '')).join(' ');

export function limitResult(
  creation: 'caller-limit' | 'total-limit',
  tool: RemoteTool,
  bounds: { readonly maxPerCaller: number; readonly maxOpen: number },
): CallToolResult {
  return creation === 'caller-limit'
    ? failureResult(
        'TOO_MANY_TASKS',
        `You have ${bounds.maxPerCaller} open tasks, the most one person may have; ${tool.exposedName} was not run. Wait for one to finish, or cancel one (tasks/cancel), and call it again.`,
      )
    : failureResult('GATEWAY_BUSY', `The gateway has ${bounds.maxOpen} open tasks, the most it runs; ${tool.exposedName} was not run. Call it again later.`);
}

export const storeUnavailable = (tool: RemoteTool) =>
  failureResult(
    'TASK_STORE_UNAVAILABLE',
    `${tool.exposedName} was not run: the gateway's store of tasks is unavailable. This is an outage, not a problem with your request; call the tool again shortly.`,
  );
