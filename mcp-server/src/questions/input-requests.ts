// The questions a tool service asks, checked before any reaches a client, and the client's answers,
// checked before any reaches the tool service. A question is what the 2026-07-28 revision of MCP
// embeds in an input-required result, within bounds: a form of the flat primitive fields MCP allows,
// a link that is https (or loopback http where the operator allows it) whose host the person is
// shown, a sampling request MCP's schema accepts; each text cleaned to show. An answer must be the
// bare response its question's method has (an elicitation result, a sampling result, a roots list).
import { specTypeSchemas, type ClientCapabilities, type InputRequests } from '@modelcontextprotocol/server';
import type { InputRequired__Output } from '@platform/proto';
import { clip, isLoopbackHost } from '@platform/tool-sdk/internal';
import { hasHiddenCharacters, shownText } from '../tool-results/shown-text.ts';
import type { InputMethod } from './request-state.ts';

/** Bounds of one round's questions and of the answers carried between rounds. */
export const questionLimits = Object.freeze({
  maxQuestions: 16,
  maxMessageLength: 4_096,
  maxRequestBytes: 64 * 1024,
  maxAnswerBytes: 64 * 1024,
  maxAnswers: 64,
});

const keyPattern = /^[A-Za-z0-9_.-]{1,64}$/;

/** One round's questions as MCP has them, with what each is and what the client must have declared to answer them. */
export interface AskedQuestions {
  readonly inputRequests: InputRequests;
  readonly asked: Readonly<Record<string, InputMethod>>;
  /** The capabilities the questions need, in MCP's shape. */
  readonly required: ClientCapabilities;
  /** The questions in a few words, for a message that says what the tool needs: `a form ("Delete Boiler?")`. */
  readonly described: readonly string[];
}

export interface QuestionPolicy {
  /** Whether a link may be plain http to a loopback host (a development stack). */
  readonly allowLoopbackHttp: boolean;
}

/** Why a tool service's questions cannot be put to anyone: a fault of the service, never the caller's. */
export class UnaskableQuestion extends Error {
  override readonly name = 'UnaskableQuestion';
  readonly code = 'UNASKABLE_QUESTION';
}

/** `value` as MCP's schema reads it (keys MCP does not define dropped), or undefined when it does not conform. */
const conforming = (schema: keyof typeof specTypeSchemas, value: unknown): unknown => {
  const outcome = specTypeSchemas[schema]['~standard'].validate(value);
  return outcome instanceof Promise || outcome.issues !== undefined ? undefined : outcome.value;
};
const validates = (schema: keyof typeof specTypeSchemas, value: unknown): boolean => conforming(schema, value) !== undefined;

function parsedObject(json: string, where: string): Record<string, unknown> {
  if (Buffer.byteLength(json) > questionLimits.maxRequestBytes) throw new UnaskableQuestion(`${where} is larger than ${questionLimits.maxRequestBytes} bytes`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch {
    throw new UnaskableQuestion(`${where} is not JSON`);
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw new UnaskableQuestion(`${where} is not a JSON object`);
  return parsed as Record<string, unknown>;
}

function shownMessage(message: string, where: string): string {
  const shown = shownText(message).trim();
  if (shown === '') throw new UnaskableQuestion(`${where} has no message`);
  return clip(shown, questionLimits.maxMessageLength);
}

/** A link the person may be sent to, and its host as they are shown it. */
function checkedLink(url: string, policy: QuestionPolicy, where: string): { url: string; host: string } {
  if (!URL.canParse(url) || hasHiddenCharacters(url)) throw new UnaskableQuestion(`${where} has no valid URL`);
  const parsed = new URL(url);
  if (parsed.username !== '' || parsed.password !== '') throw new UnaskableQuestion(`${where} has a URL with user information`);
  const loopback = isLoopbackHost(parsed.hostname);
  if (parsed.protocol !== 'https:' && !(parsed.protocol === 'http:' && loopback && policy.allowLoopbackHttp)) {
    throw new UnaskableQuestion(
      `${where} links to ${parsed.protocol.slice(0, -1)} (only https${policy.allowLoopbackHttp ? ', or http on loopback,' : ''} is allowed)`,
    );
  }
  return { url: parsed.href, host: parsed.host };
}

/** One round's questions as MCP input requests; throws UnaskableQuestion naming the first at fault. */
export function questionsOf(inputRequired: InputRequired__Output, policy: QuestionPolicy): AskedQuestions {
  const entries = Object.entries(inputRequired.requests);
  if (entries.length === 0) throw new UnaskableQuestion('the call ended with questions but asked none');
  if (entries.length > questionLimits.maxQuestions)
    throw new UnaskableQuestion(`the call asked ${entries.length} questions at once; at most ${questionLimits.maxQuestions} are put`);
  // Entries, made into objects at the end: a key "__proto__" stays a key, never the prototype.
  const inputRequests: [string, InputRequests[string]][] = [];
  const asked: [string, InputMethod][] = [];
  const required: Record<string, Record<string, unknown>> = {};
  const described: string[] = [];
  const need = (capability: string, member?: string) => {
    required[capability] ??= {};
    if (member !== undefined) required[capability][member] = {};
  };
  for (const [key, request] of entries) {
    if (!keyPattern.test(key)) throw new UnaskableQuestion(`a question's key is not 1 to 64 of letters, digits, "_", "." or "-"`);
    const where = `question ${key}`;
    if (request.form) {
      const message = shownMessage(request.form.message, where);
      // Passed on as MCP defines a form, and nothing else: a keyword such as `pattern` would have the
      // client (or the SDK answering for a 2025-11-25 one) run another app's regular expression.
      const conformed = conforming('ElicitRequestFormParams', {
        message,
        requestedSchema: parsedObject(request.form.requestedSchemaJson, `${where}'s requested schema`),
      }) as { message: string; requestedSchema: { properties: unknown; required?: unknown } } | undefined;
      if (conformed === undefined) throw new UnaskableQuestion(`${where} asks for a form outside what MCP allows (a flat object of primitive fields)`);
      // MCP's schema is loose at the form's top level: the form is made again of what MCP defines there.
      const { properties, required } = conformed.requestedSchema;
      const params = { message: conformed.message, requestedSchema: { type: 'object', properties, ...(required !== undefined && { required }) } };
      inputRequests.push([key, { method: 'elicitation/create', params: params as never }]);
      asked.push([key, 'elicitation/create']);
      need('elicitation', 'form');
      described.push(`a form ("${clip(message, 120)}")`);
    } else if (request.url) {
      const { url, host } = checkedLink(request.url.url, policy, where);
      const message = `${shownMessage(request.url.message, where)}\n\nThe link opens ${host}.`;
      inputRequests.push([key, { method: 'elicitation/create', params: { mode: 'url', message, url } as never }]);
      asked.push([key, 'elicitation/create']);
      need('elicitation', 'url');
      described.push(`a page to open at ${host}`);
    } else if (request.samplingParamsJson !== undefined) {
      const params = parsedObject(request.samplingParamsJson, `${where}'s sampling request`);
      if (!validates('CreateMessageRequestParams', params)) throw new UnaskableQuestion(`${where} is a sampling request MCP does not accept`);
      inputRequests.push([key, { method: 'sampling/createMessage', params: params as never }]);
      asked.push([key, 'sampling/createMessage']);
      if (params.tools !== undefined || params.toolChoice !== undefined) need('sampling', 'tools');
      else need('sampling');
      described.push("a completion from the client's model");
    } else if (request.roots) {
      inputRequests.push([key, { method: 'roots/list' } as never]);
      asked.push([key, 'roots/list']);
      need('roots');
      described.push("the client's roots");
    } else throw new UnaskableQuestion(`${where} is of no kind MCP knows`);
  }
  return { inputRequests: Object.fromEntries(inputRequests), asked: Object.fromEntries(asked), required, described };
}

/** The capabilities of `required` that `declared` lacks, in MCP's shape; undefined when none (a bare `elicitation: {}` is form). */
export function missingCapabilities(required: ClientCapabilities, declared: ClientCapabilities | undefined): ClientCapabilities | undefined {
  const missing: Record<string, Record<string, unknown>> = {};
  for (const [capability, members] of Object.entries(required as Record<string, Record<string, unknown>>)) {
    const have = (declared as Record<string, unknown> | undefined)?.[capability];
    if (have === undefined || have === null || typeof have !== 'object') {
      missing[capability] = members;
      continue;
    }
    const declaredMembers = have as Record<string, unknown>;
    const bareElicitation = capability === 'elicitation' && declaredMembers.form === undefined && declaredMembers.url === undefined;
    const lacking = Object.keys(members).filter((member) => declaredMembers[member] === undefined && !(bareElicitation && member === 'form'));
    if (lacking.length > 0) missing[capability] = Object.fromEntries(lacking.map((member) => [member, {}]));
  }
  return Object.keys(missing).length > 0 ? missing : undefined;
}

const resultSchemaOf: Readonly<Record<InputMethod, readonly (keyof typeof specTypeSchemas)[]>> = {
  'elicitation/create': ['ElicitResult'],
  'sampling/createMessage': ['CreateMessageResult', 'CreateMessageResultWithTools'],
  'roots/list': ['ListRootsResult'],
};

/**
 * The answers to hand the tool: those it had (sealed in the state), and this round's responses to the
 * questions of the last round, each the bare response its question's method has and within bounds
 * (one that is not stays unanswered, and the tool asks again). With no state (a first call that
 * brings answers), any answer within bounds is handed on: the tool's own check decides.
 */
export function answersOf(
  had: Readonly<Record<string, string>>,
  asked: Readonly<Record<string, InputMethod>> | undefined,
  responses: Readonly<Record<string, unknown>> | undefined,
): Record<string, string> {
  const answers = new Map(Object.entries(had));
  for (const [key, response] of Object.entries(responses ?? {})) {
    if (answers.size >= questionLimits.maxAnswers) break;
    // An answer the tool had stands: a question answered is not answered again.
    if (Object.hasOwn(had, key) || !keyPattern.test(key)) continue;
    const method = asked === undefined ? undefined : Object.hasOwn(asked, key) ? asked[key] : null;
    if (method === null) continue;
    if (method !== undefined && !resultSchemaOf[method].some((schema) => validates(schema, response))) continue;
    if (response === null || typeof response !== 'object' || Array.isArray(response)) continue;
    const json = JSON.stringify(response);
    if (Buffer.byteLength(json) <= questionLimits.maxAnswerBytes) answers.set(key, json);
  }
  return Object.fromEntries(answers);
}
