import { MissingRequiredClientCapabilityError, ProtocolError, type CallToolResult, type InputRequiredResult } from '@modelcontextprotocol/server';
import type { InputRequired__Output } from '@platform/proto';
import { createLogger } from '@platform/tool-sdk';
import { captureLogs, manualClock } from '@platform/tool-sdk/testing';
import { describe, expect, it } from 'vitest';
import type { RemoteTool } from '../remote-tools.ts';
import { errorMetaKey } from '../tool-results/index.ts';
import { createQuestionRounds, maxStateBytes } from './question-rounds.ts';
import { createRequestStates } from './request-state.ts';
import { createMemorySpentStates, type SpentStates } from './spent-states.ts';

const clock = manualClock(Date.now());
const states = createRequestStates({ secret: 'gateway secret', ttlMs: 60_000, clock });
const binding = { callerId: 'u-oscar', appClientId: 'webhook-tools', tool: 'delete_webhook', args: { webhookId: 'w-1' } };
const tool = { exposedName: 'delete_webhook', service: { serviceName: 'webhook-tools' } } as RemoteTool;
const confirm: InputRequired__Output = {
  requests: { confirm: { form: { message: 'Delete it?', requestedSchemaJson: '{"type":"object","properties":{}}' }, request: 'form' } },
};

function rounds(spent: SpentStates = createMemorySpentStates(clock), maxRounds = 3) {
  const logs = captureLogs();
  const questionRounds = createQuestionRounds({
    states,
    spent,
    maxRounds,
    policy: { allowLoopbackHttp: false },
    logger: createLogger({ name: 'test', level: 'info', destination: logs.destination }),
  });
  return { questionRounds, logs };
}

const asked = (outcome: unknown) => outcome as InputRequiredResult;
const failed = (outcome: unknown) => outcome as CallToolResult;
const formCapable = { elicitation: { form: {} } };

describe('the rounds of a call', () => {
  it('ask with a sealed state, and begin the next round with every answer, once', async () => {
    const { questionRounds } = rounds();
    const first = asked(questionRounds.ask(confirm, { round: { round: 0, answers: {} }, binding, tool, declared: formCapable, era: 'modern' }));
    expect(first).toMatchObject({ resultType: 'input_required', inputRequests: { confirm: { method: 'elicitation/create' } } });
    const next = await questionRounds.begin(first.requestState, { confirm: { action: 'accept', content: {} }, extra: { action: 'accept' } }, binding);
    expect(next).toEqual({ round: 1, answers: { confirm: '{"action":"accept","content":{}}' } });
    await expect(questionRounds.begin(first.requestState, { confirm: { action: 'accept', content: {} } }, binding)).rejects.toBeInstanceOf(ProtocolError);
  });

  it('refuse a state for another binding, logging why but answering the frozen message', async () => {
    const { questionRounds, logs } = rounds();
    const first = asked(questionRounds.ask(confirm, { round: { round: 0, answers: {} }, binding, tool, declared: formCapable, era: 'modern' }));
    const refusal = await questionRounds.begin(first.requestState, {}, { ...binding, callerId: 'u-vera' }).catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(ProtocolError);
    expect((refusal as ProtocolError).message).toContain('Invalid or expired requestState');
    expect(logs.lines.some((line) => line.includes('"why":"foreign"'))).toBe(true);
  });

  it('answer an outage of the spent states as a result that says so, never as the answers’ fault', async () => {
    const down: SpentStates = { spend: () => Promise.reject(new Error('connection refused')), close: () => Promise.resolve() };
    const { questionRounds } = rounds(down);
    const first = asked(questionRounds.ask(confirm, { round: { round: 0, answers: {} }, binding, tool, declared: formCapable, era: 'modern' }));
    const outcome = failed(await questionRounds.begin(first.requestState, {}, binding));
    expect(outcome.isError).toBe(true);
    expect(outcome._meta?.[errorMetaKey]).toMatchObject({ code: 'STATE_STORE_UNAVAILABLE' });
  });

  it('tell a client that cannot answer: MCP -32021 with the capabilities on 2026-07-28, a readable result on 2025-11-25', () => {
    const { questionRounds } = rounds();
    const context = { round: { round: 0, answers: {} }, binding, tool, declared: { sampling: {} } };
    expect(() => questionRounds.ask(confirm, { ...context, era: 'modern' })).toThrow(MissingRequiredClientCapabilityError);
    const legacy = failed(questionRounds.ask(confirm, { ...context, era: 'legacy' }));
    expect(legacy._meta?.[errorMetaKey]).toMatchObject({ code: 'CLIENT_CANNOT_ANSWER' });
    expect(JSON.stringify(legacy.content)).toContain('needs a form (\\"Delete it?\\") to go on');
  });

  it('stop at the round limit, and carry no answer the tool asks again', async () => {
    const { questionRounds } = rounds(undefined, 2);
    const past = failed(questionRounds.ask(confirm, { round: { round: 2, answers: {} }, binding, tool, declared: formCapable, era: 'modern' }));
    expect(past._meta?.[errorMetaKey]).toMatchObject({ code: 'TOO_MANY_ROUNDS' });
    const again = asked(
      questionRounds.ask(confirm, {
        round: { round: 1, answers: { confirm: '{"action":"decline"}', kept: '{"action":"accept"}' } },
        binding,
        tool,
        declared: formCapable,
        era: 'modern',
      }),
    );
    expect(await questionRounds.begin(again.requestState, {}, binding)).toEqual({ round: 2, answers: { kept: '{"action":"accept"}' } });
  });

  it('refuse to carry answers larger than a state may be', () => {
    const { questionRounds } = rounds();
    const answers = Object.fromEntries(
      Array.from({ length: 8 }, (_, index) => [`a${index}`, JSON.stringify({ action: 'accept', content: { text: 'x'.repeat(60_000) } })]),
    );
    const outcome = failed(questionRounds.ask(confirm, { round: { round: 0, answers }, binding, tool, declared: formCapable, era: 'modern' }));
    expect(outcome._meta?.[errorMetaKey]).toMatchObject({ code: 'ANSWERS_TOO_LARGE' });
    expect(maxStateBytes).toBe(256 * 1024);
  });
});
