// The requestState of a 2026-07-28 input-required result as an attacker would try it, in raw
// requests: the state is sealed by the gateway and opens only for the same person, tool and
// arguments, once, before it expires. A state changed by a byte, answered twice (racing or
// replayed), brought by another person, for other arguments or another tool, or past its time is
// refused with MCP's invalid-params error, and the tool is not called with its answers.
import { modernRequest } from '@platform/devtools/modern-request';
import { defineTool, toolResult } from '@platform/tool-sdk/tools';
import { manualClock, startedForTests } from '@platform/tool-sdk/testing';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { stackForTests, until, type Stack, toolAppAt } from './harness.ts';

const clock = manualClock(Date.now());
// Registrations that outlive the clock's jump past the states' lifetime.
const stack = stackForTests({ clock, gatewayEnv: { MCP_INPUT_STATE_TTL_SECONDS: '60', REGISTRY_MAX_TTL_SECONDS: '3600' } });
/** The answers the tool was run with, by call. */
const confirmed: string[] = [];

startedForTests(async () => {
  const app = toolAppAt(stack(), 'fleet-insights', 'confirming', { env: { TOOL_REGISTRATION_TTL_SECONDS: '3600' } });
  const confirmTool = (name: string) =>
    defineTool({
      name,
      title: name,
      description: 'Asks the person to confirm the deletion of a thing, then says what it would delete.',
      inputSchema: z.strictObject({ thing: z.string() }),
      handler: async ({ thing }, ctx) => {
        const answer = await ctx.elicit({ message: `Delete ${thing}?`, requestedSchema: z.object({ confirm: z.boolean() }) }, { key: 'confirm' });
        const said = answer.action === 'accept' && answer.content.confirm ? `deleted ${thing}` : `kept ${thing}`;
        confirmed.push(said);
        return toolResult({ content: [{ type: 'text', text: said }] });
      },
    });
  app.registerTools([confirmTool('delete_thing'), confirmTool('delete_other_thing')]);
  const serving = await app.serve();
  await until(() => stack().gateway.registry.catalog().byName('fleet-insights__delete_thing') !== undefined, 'the tool registered');
  return { close: () => serving.close() };
});

/** One 2026-07-28 tools/call of a tool of fleet-insights, as the wire carries it (no tasks extension): its JSON-RPC answer. */
const call = (at: Stack, token: string, tool: string, params: Record<string, unknown>) =>
  modernRequest(at.mcpUrl, token, 'tools/call', { name: `fleet-insights__${tool}`, ...params }, { tasks: false });

const yes = { confirm: { action: 'accept', content: { confirm: true } } };
const refusedState = { code: -32602, message: 'Invalid or expired requestState' };

/** The first round: the tool asks, and the gateway answers with its sealed state. */
async function firstRound(token: string, thing = 'boiler', tool = 'delete_thing'): Promise<string> {
  const answer = await call(stack(), token, tool, { arguments: { thing } });
  expect(answer.result).toMatchObject({ resultType: 'input_required', inputRequests: { confirm: { method: 'elicitation/create' } } });
  const state = answer.result?.requestState;
  expect(typeof state).toBe('string');
  return state as string;
}

describe('a requestState', () => {
  it('brought back with the answer, by the same person, for the same call, runs the tool with the answer once', async () => {
    const token = await stack().tokenFor('oscar');
    const state = await firstRound(token);
    const answered = await call(stack(), token, 'delete_thing', { arguments: { thing: 'boiler' }, inputResponses: yes, requestState: state });
    expect(answered.result).toMatchObject({ resultType: 'complete', content: [{ type: 'text', text: 'deleted boiler' }] });
  });

  it('is refused when replayed after it was answered, and the tool does not run again', async () => {
    const token = await stack().tokenFor('oscar');
    const state = await firstRound(token, 'pump');
    const first = await call(stack(), token, 'delete_thing', { arguments: { thing: 'pump' }, inputResponses: yes, requestState: state });
    expect(first.result).toMatchObject({ content: [{ text: 'deleted pump' }] });
    const runs = confirmed.length;
    const replayed = await call(stack(), token, 'delete_thing', { arguments: { thing: 'pump' }, inputResponses: yes, requestState: state });
    expect(replayed.error).toMatchObject(refusedState);
    expect(confirmed.length).toBe(runs);
  });

  it('answered twice at once, runs the tool for one of the two only', async () => {
    const token = await stack().tokenFor('oscar');
    const state = await firstRound(token, 'valve');
    const runs = confirmed.length;
    const both = await Promise.all(
      [1, 2].map(() => call(stack(), token, 'delete_thing', { arguments: { thing: 'valve' }, inputResponses: yes, requestState: state })),
    );
    expect(both.filter((answer) => answer.result !== undefined)).toHaveLength(1);
    expect(both.filter((answer) => answer.error?.code === -32602)).toHaveLength(1);
    expect(confirmed.length).toBe(runs + 1);
  });

  it.each([
    ['a byte changed', (state: string) => `${state.slice(0, -4)}${state.slice(-4) === 'AAAA' ? 'BBBB' : 'AAAA'}`],
    ['a suffix added', (state: string) => `${state}-TAMPERED`],
    ['cut short', (state: string) => state.slice(0, 40)],
    ['not one of the gateway’s', () => JSON.stringify({ round: 1, answers: {} })],
  ])('is refused with %s, and the tool is not run with the answer', async (_case, tamper) => {
    const token = await stack().tokenFor('oscar');
    const state = await firstRound(token, 'tank');
    const runs = confirmed.length;
    const answer = await call(stack(), token, 'delete_thing', { arguments: { thing: 'tank' }, inputResponses: yes, requestState: tamper(state) });
    expect(answer.error).toMatchObject(refusedState);
    expect(confirmed.length).toBe(runs);
  });

  it("is refused when another person brings it, even with the same call, and that person's answer is not used", async () => {
    const state = await firstRound(await stack().tokenFor('oscar'), 'heater');
    const runs = confirmed.length;
    const answer = await call(stack(), await stack().tokenFor('vera'), 'delete_thing', {
      arguments: { thing: 'heater' },
      inputResponses: yes,
      requestState: state,
    });
    expect(answer.error).toMatchObject(refusedState);
    expect(confirmed.length).toBe(runs);
  });

  it('is refused for other arguments or another tool than those it was handed out for', async () => {
    const token = await stack().tokenFor('oscar');
    const state = await firstRound(token, 'fan');
    const otherArgs = await call(stack(), token, 'delete_thing', { arguments: { thing: 'the whole fleet' }, inputResponses: yes, requestState: state });
    expect(otherArgs.error).toMatchObject(refusedState);
    const stateAgain = await firstRound(token, 'fan');
    const otherTool = await call(stack(), token, 'delete_other_thing', { arguments: { thing: 'fan' }, inputResponses: yes, requestState: stateAgain });
    expect(otherTool.error).toMatchObject(refusedState);
  });

  it('never holds the answers in the clear: the state does not show them', async () => {
    const token = await stack().tokenFor('oscar');
    const state = await firstRound(token, 'secret-thing');
    expect(state).toMatch(/^v1\.[A-Za-z0-9_-]+$/);
    expect(Buffer.from(state.slice(3), 'base64url').toString('latin1')).not.toContain('confirm');
  });

  it('is refused once its time has passed (MCP_INPUT_STATE_TTL_SECONDS)', async () => {
    const token = await stack().tokenFor('oscar');
    const state = await firstRound(token, 'lamp');
    clock.advance(61_000);
    const answer = await call(stack(), token, 'delete_thing', { arguments: { thing: 'lamp' }, inputResponses: yes, requestState: state });
    expect(answer.error).toMatchObject(refusedState);
    const logged = stack().logs.filter((line) => line.includes('a requestState was refused'));
    expect(logged.some((line) => line.includes('"why":"expired"'))).toBe(true);
  });
});
