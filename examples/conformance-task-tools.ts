// The MCP conformance suite's fixture tools for its tasks-* scenarios, which call them by name
// through the gateway: tools that may (or must) run as MCP tasks (`execution.taskSupport`), written
// as any other tool. A slow one that honours its signal, one that ends in a tool error, one that
// fails internally (a failed task), and tools that ask the person inside a task (input_required).
import { setTimeout as sleep } from 'node:timers/promises';
import { defineTool, toolResult, ToolError, type ToolDefinition } from '@platform/tool-sdk/tools';
import { z } from 'zod';

const text = (value: string) => toolResult({ content: [{ type: 'text', text: value }] });

/** No arguments: the suite sends `{}`. */
const none = z.strictObject({});

/** A form of one field. */
const form = (message: string, field: string, type: 'string' | 'boolean') =>
  ({ message, requestedSchema: { type: 'object', properties: { [field]: { type } }, required: [field] } }) as const;

/** The field of an accepted answer, or undefined. */
const said = (answer: { action: string; content?: Readonly<Record<string, string | number | boolean | string[]>> }, field: string) =>
  answer.action === 'accept' ? answer.content?.[field] : undefined;

/** The fixtures of the suite's tasks scenarios. */
export const conformanceTaskTools: readonly ToolDefinition[] = [
  defineTool({
    name: 'greet',
    title: 'greet',
    description: 'Greets someone by name, at once (never as a task)',
    inputSchema: z.strictObject({ name: z.string().describe('Who to greet') }),
    execution: { taskSupport: 'forbidden' },
    handler: ({ name }) => text(`Hello, ${name}!`),
  }),
  defineTool({
    name: 'slow_compute',
    title: 'slow_compute',
    description: 'Computes for the given number of seconds, then answers; may run as a task',
    inputSchema: z.strictObject({
      seconds: z.number().min(0).max(3_600).describe('How long to compute, in seconds'),
      label: z.string().max(200).optional().describe('What the computation is called'),
    }),
    execution: { taskSupport: 'optional' },
    handler: async ({ seconds, label = 'result' }, ctx) => {
      await sleep(seconds * 1_000, undefined, { signal: ctx.signal });
      return text(`Computed ${label} after ${seconds}s`);
    },
  }),
  defineTool({
    name: 'failing_job',
    title: 'failing_job',
    description: 'A job that always fails after a second, with a tool error; runs only as a task',
    inputSchema: none,
    execution: { taskSupport: 'required' },
    handler: async (_args, ctx) => {
      await sleep(1_000, undefined, { signal: ctx.signal });
      throw new ToolError('JOB_FAILED', 'The job failed, as it always does');
    },
  }),
  defineTool({
    name: 'protocol_error_job',
    title: 'protocol_error_job',
    description: 'A job that breaks (an internal failure, not a tool error): its task fails',
    inputSchema: none,
    execution: { taskSupport: 'optional' },
    handler: async (_args, ctx) => {
      await sleep(1_000, undefined, { signal: ctx.signal });
      throw new Error('the job broke: an internal failure of the conformance fixture');
    },
  }),
  defineTool({
    name: 'confirm_delete',
    title: 'confirm_delete',
    description: 'Asks the person to confirm, then deletes the file (or keeps it)',
    inputSchema: z.strictObject({ filename: z.string().describe('The file to delete') }),
    execution: { taskSupport: 'optional' },
    handler: async ({ filename }, ctx) => {
      const answer = await ctx.elicit(form(`Delete ${filename}?`, 'confirm', 'boolean'), { key: 'confirm' });
      return text(said(answer, 'confirm') === true ? `Deleted ${filename}` : `Kept ${filename}`);
    },
  }),
  defineTool({
    name: 'multi_input',
    title: 'multi_input',
    description: 'Asks the person two questions at once, then answers with both',
    inputSchema: none,
    execution: { taskSupport: 'optional' },
    handler: async (_args, ctx) => {
      const [name, confirm] = await Promise.all([
        ctx.elicit(form('What is your name?', 'name', 'string'), { key: 'name' }),
        ctx.elicit(form('Do you confirm?', 'confirm', 'boolean'), { key: 'confirm' }),
      ]);
      return text(`Name: ${String(said(name, 'name') ?? 'unknown')}; confirmed: ${said(confirm, 'confirm') === true ? 'yes' : 'no'}`);
    },
  }),
  defineTool({
    name: 'test_tool_with_task',
    title: 'test_tool_with_task',
    description: 'Asks for a name in the call itself, then greets it in a task; runs only as a task',
    inputSchema: none,
    // The question before the task (MCP multi round-trip), the greeting inside it.
    execution: { taskSupport: 'required', taskStart: 'explicit' },
    handler: async (_args, ctx) => {
      const answer = await ctx.elicit(form('What is your name?', 'name', 'string'), { key: 'user_name' });
      ctx.startTask();
      return text(`Hello, ${String(said(answer, 'name') ?? 'unknown')}!`);
    },
  }),
];
