// The tasks scenarios' fixture tools on the SDK's real runner (the caller check a stand-in that
// accepts): what each answers, which may run as a task, and their questions by the keys the suite
// answers. The suite itself runs them through the gateway (mcp-server/test/conformance.test.ts).
import { createLogger } from '@platform/tool-sdk';
import { createToolRunner, ToolCallError, type CallerCheck, type ToolCall, type ToolCallOutcome } from '@platform/tool-sdk/internal';
import { captureLogs } from '@platform/tool-sdk/testing';
import { describe, expect, it } from 'vitest';
import { conformanceTaskTools } from '../../examples/conformance-task-tools.ts';
import { conformanceTools } from '../../examples/conformance-tools.ts';

const accepting: CallerCheck = () =>
  Promise.resolve({
    ok: true,
    caller: { id: 'u-alice', audience: ['http://127.0.0.1:9'], actor: { clientId: 'conformance-tools' }, companies: [] },
    credential: { scheme: 'Bearer', token: 'delegated-token' },
  });

const logs = captureLogs();
const runner = createToolRunner({
  tools: conformanceTaskTools,
  checkCaller: accepting,
  logger: createLogger({ name: 'conformance-task-tools-test', level: 'info', destination: logs.destination }),
  apiBaseUrl: 'http://127.0.0.1:9',
  platformApiBaseUrls: new Map(),
  httpTimeoutMs: 1_000,
});

const run = (name: string, args: unknown = {}, overrides: Partial<ToolCall> = {}) =>
  runner.call({
    name,
    argumentsJson: JSON.stringify(args),
    requestId: 'conformance-1',
    authorization: ['Bearer delegated-token'],
    signal: new AbortController().signal,
    client: { progress: true, logLevel: 'LOG_LEVEL_UNSPECIFIED', elicitationForm: true, elicitationUrl: false, sampling: false, roots: false },
    ...overrides,
  });

const textOf = (outcome: ToolCallOutcome) =>
  'result' in outcome ? (outcome.result.content ?? []).map((block) => block.text).join('') : JSON.stringify(outcome);
const keysOf = (outcome: ToolCallOutcome) => ('inputRequired' in outcome ? Object.keys(outcome.inputRequired.requests ?? {}) : []);
const accepted = (content: Record<string, unknown>) => JSON.stringify({ action: 'accept', content });

describe('the tasks fixtures', () => {
  it('are among the conformance tools, each with the task support its scenario expects', () => {
    const names = new Set(conformanceTools.map((tool) => tool.name));
    expect(conformanceTaskTools.every((tool) => names.has(tool.name))).toBe(true);
    expect(Object.fromEntries(runner.listing.map((tool) => [tool.name, tool.taskSupport]))).toEqual({
      greet: 'TASK_SUPPORT_FORBIDDEN',
      slow_compute: 'TASK_SUPPORT_OPTIONAL',
      failing_job: 'TASK_SUPPORT_REQUIRED',
      protocol_error_job: 'TASK_SUPPORT_OPTIONAL',
      confirm_delete: 'TASK_SUPPORT_OPTIONAL',
      multi_input: 'TASK_SUPPORT_OPTIONAL',
      test_tool_with_task: 'TASK_SUPPORT_REQUIRED',
    });
  });

  it('greet and slow_compute answer with text', async () => {
    expect(textOf(await run('greet', { name: 'Alice' }))).toBe('Hello, Alice!');
    expect(textOf(await run('slow_compute', { seconds: 0.05, label: 'pi' }))).toBe('Computed pi after 0.05s');
  });

  it('slow_compute stops when its signal aborts', async () => {
    const controller = new AbortController();
    const running = run('slow_compute', { seconds: 60 }, { signal: controller.signal });
    controller.abort(new ToolCallError('CANCELLED'));
    expect(await running).toMatchObject({ refusal: { code: 'CANCELLED' } });
  });

  it('failing_job ends with a tool error, protocol_error_job with an internal failure', async () => {
    const failed = await run('failing_job', {});
    expect('result' in failed && failed.result.isError).toBe(true);
    expect(textOf(failed)).toContain('The job failed, as it always does');
    expect(await run('protocol_error_job')).toMatchObject({ refusal: { code: 'INTERNAL' } });
  });

  it('confirm_delete asks once, then deletes or keeps the file', async () => {
    expect(keysOf(await run('confirm_delete', { filename: 'a.txt' }))).toEqual(['confirm']);
    const yes = await run('confirm_delete', { filename: 'a.txt' }, { inputResponses: { confirm: accepted({ confirm: true }) } });
    expect(textOf(yes)).toBe('Deleted a.txt');
    const no = await run('confirm_delete', { filename: 'a.txt' }, { inputResponses: { confirm: accepted({ confirm: false }) } });
    expect(textOf(no)).toBe('Kept a.txt');
  });

  it('multi_input asks two questions together and names both answers', async () => {
    expect(keysOf(await run('multi_input'))).toEqual(['name', 'confirm']);
    const both = await run('multi_input', {}, { inputResponses: { name: accepted({ name: 'Bob' }), confirm: accepted({ confirm: true }) } });
    expect(textOf(both)).toBe('Name: Bob; confirmed: yes');
  });

  it("test_tool_with_task asks under user_name and greets the suite's Alice", async () => {
    expect(keysOf(await run('test_tool_with_task'))).toEqual(['user_name']);
    expect(textOf(await run('test_tool_with_task', {}, { inputResponses: { user_name: accepted({ name: 'Alice' }) } }))).toBe('Hello, Alice!');
  });
});
