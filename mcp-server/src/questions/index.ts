// Questions a tool puts to the person or the client, over rounds of a call (2026-07-28 multi round-trip requests).
export {
  createQuestionRounds,
  maxStateBytes,
  vetQuestions,
  type AskedOutcome,
  type QuestionRounds,
  type QuestionRoundsOptions,
  type Round,
  type VettedQuestions,
} from './question-rounds.ts';
export { answersOf, missingCapabilities, questionLimits, questionsOf, UnaskableQuestion, type AskedQuestions, type QuestionPolicy } from './input-requests.ts';
export {
  createRequestStates,
  inputMethods,
  type InputMethod,
  type OpenedState,
  type RequestStates,
  type RoundState,
  type StateBinding,
} from './request-state.ts';
export { createMemorySpentStates, type SpentStates } from './spent-states.ts';
export { openPostgresSpentStates, type PostgresSpentStatesOptions } from './postgres-spent-states.ts';
