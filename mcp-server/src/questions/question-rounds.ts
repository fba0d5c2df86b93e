// A tool call's rounds of questions, as the 2026-07-28 revision of MCP runs them (multi round-trip
// requests): a call that ends with questions is answered with an input-required result carrying the
// questions and a sealed `requestState`; the client asks the person (or its model), and calls the
// tool again with the answers and the state; the gateway opens the state (the same person, tool and
// arguments, not expired, never answered before), and calls the tool again with every answer so far.
// Nothing waits in a replica's memory, so the next round may come to any replica, after any restart.
// The 2025-11-25 revision gets the same rounds from the MCP SDK, which puts each question to the
// client on the request's stream and calls the handler again. A client that cannot answer a question
// is told so at once: an `isError` result on 2025-11-25, MCP's -32021 error on 2026-07-28.
import {
  inputRequired,
  MissingRequiredClientCapabilityError,
  ProtocolError,
  ProtocolErrorCode,
  type CallToolResult,
  type ClientCapabilities,
  type InputRequiredResult,
} from '@modelcontextprotocol/server';
import type { InputRequired__Output } from '@platform/proto';
import type { Logger } from '@platform/tool-sdk';
import type { RemoteTool } from '../remote-tools.ts';
import { failureResult } from '../tool-results/index.ts';
import { answersOf, missingCapabilities, questionsOf, UnaskableQuestion, type AskedQuestions, type QuestionPolicy } from './input-requests.ts';
import type { RequestStates, StateBinding } from './request-state.ts';
import type { SpentStates } from './spent-states.ts';

/** Where a round begins: its number and the answers the tool is called with. */
export interface Round {
  /** Rounds of questions before this call: 0 for a first call. */
  readonly round: number;
  readonly answers: Readonly<Record<string, string>>;
}

/** What a call ended with, asked of the client: an input-required result, or a result saying why the questions cannot be put. */
export type AskedOutcome = InputRequiredResult | CallToolResult;

export interface QuestionRounds {
  /**
   * The round a call begins: its answers, from the state it brings (opened and spent) and this
   * round's responses. Throws MCP's invalid-params error for a state that does not open, has expired
   * or was answered before; answers a result when the state cannot be checked (an outage).
   */
  begin(requestState: unknown, responses: unknown, binding: StateBinding): Promise<Round | CallToolResult>;
  /** The input-required result for a call that ended with questions, or a result (or error) saying why they are not put. */
  ask(
    questions: InputRequired__Output,
    context: {
      readonly round: Round;
      readonly binding: StateBinding;
      readonly tool: RemoteTool;
      readonly declared: ClientCapabilities | undefined;
      readonly era: 'modern' | 'legacy';
    },
  ): AskedOutcome;
}

export interface QuestionRoundsOptions {
  readonly states: RequestStates;
  readonly spent: SpentStates;
  /** Rounds of questions one call may go through. */
  readonly maxRounds: number;
  readonly policy: QuestionPolicy;
  readonly logger: Logger;
}

/** Largest sealed state handed to a client: the answers carried between rounds are bounded by it. */
export const maxStateBytes = 256 * 1024;

const invalidState = () => new ProtocolError(ProtocolErrorCode.InvalidParams, 'Invalid or expired requestState', { reason: 'invalid_request_state' });

function responsesOf(value: unknown): Readonly<Record<string, unknown>> | undefined {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

/** Questions fit to put to the client, and the answers the tool keeps (those it asks for again are ones it did not accept). */
export interface VettedQuestions {
  readonly asked: AskedQuestions;
  readonly answers: Readonly<Record<string, string>>;
}

/**
 * Whether a tool's questions may be put to this client, in this round: what MCP allows, what the
 * client declared it can answer, within the rounds allowed. A result saying why not otherwise (for
 * a 2026-07-28 client without the capability, MCP's -32021 error is thrown). A plain call's rounds
 * and a task's questions alike.
 */
export function vetQuestions(
  questions: InputRequired__Output,
  context: {
    readonly round: Round;
    readonly tool: RemoteTool;
    readonly declared: ClientCapabilities | undefined;
    readonly era: 'modern' | 'legacy';
    readonly policy: QuestionPolicy;
    readonly maxRounds: number;
  },
): VettedQuestions | CallToolResult {
  const { round, tool, declared, era } = context;
  let asked;
  try {
    asked = questionsOf(questions, context.policy);
  } catch (error) {
    if (!(error instanceof UnaskableQuestion)) throw error;
    return failureResult(
      'UNASKABLE_QUESTION',
      `The tool ${tool.exposedName} needs an answer the gateway cannot ask for: its service (${tool.service.serviceName}) asked a question that breaks MCP's rules (${error.message}). This is a fault of the tool, not of your request; tell the tool's operator.`,
    );
  }
  const missing = missingCapabilities(asked.required, declared);
  if (missing !== undefined) {
    const message =
      `The tool ${tool.exposedName} needs ${asked.described.join(' and ')} to go on, but this client did not declare that it can answer ` +
      `(${Object.keys(missing).join(', ')}). Nothing was changed. Use a client that supports MCP ${Object.keys(missing).join(' and ')}, or do this another way.`;
    if (era === 'modern') throw new MissingRequiredClientCapabilityError({ requiredCapabilities: missing }, message);
    return failureResult('CLIENT_CANNOT_ANSWER', message);
  }
  if (round.round >= context.maxRounds) {
    return failureResult(
      'TOO_MANY_ROUNDS',
      `The tool ${tool.exposedName} asked questions ${round.round + 1} times in one call; the gateway allows ${context.maxRounds}. Nothing more is asked; call the tool again if you still need it.`,
    );
  }
  // Answers the tool asks for again are ones it did not accept: they are not carried on.
  const answers = Object.fromEntries(Object.entries(round.answers).filter(([key]) => !Object.hasOwn(asked.asked, key)));
  return { asked, answers };
}

export function createQuestionRounds(options: QuestionRoundsOptions): QuestionRounds {
  const { states, spent, logger } = options;
  return {
    async begin(requestState, responses, binding) {
      if (typeof requestState !== 'string') return { round: 0, answers: answersOf({}, undefined, responsesOf(responses)) };
      const opened = states.open(requestState, binding);
      if (typeof opened === 'string') {
        logger.info({ callerId: binding.callerId, tool: binding.tool, why: opened }, 'a requestState was refused');
        throw invalidState();
      }
      let first: boolean;
      try {
        first = await spent.spend(opened.nonce, opened.expiresAt);
      } catch (error) {
        logger.warn({ err: error }, 'the spent request states could not be checked');
        return failureResult(
          'STATE_STORE_UNAVAILABLE',
          `The answers for ${binding.tool} could not be checked: the gateway's store of answered questions is unavailable. This is an outage, not a problem with your answers; call the tool again shortly.`,
        );
      }
      if (!first) {
        logger.info({ callerId: binding.callerId, tool: binding.tool, why: 'answered before' }, 'a requestState was refused');
        throw invalidState();
      }
      return { round: opened.round, answers: answersOf(opened.answers, opened.asked, responsesOf(responses)) };
    },

    ask(questions, { round, binding, tool, declared, era }) {
      const vetted = vetQuestions(questions, { round, tool, declared, era, policy: options.policy, maxRounds: options.maxRounds });
      if ('content' in vetted) return vetted;
      const { asked, answers } = vetted;
      const requestState = states.seal({ round: round.round + 1, answers, asked: asked.asked }, binding);
      if (requestState.length > maxStateBytes) {
        return failureResult(
          'ANSWERS_TOO_LARGE',
          `The answers given to ${tool.exposedName} so far are larger than the gateway carries between questions (${maxStateBytes} bytes). Call the tool again with less.`,
        );
      }
      return inputRequired({ inputRequests: asked.inputRequests, requestState });
    },
  };
}
