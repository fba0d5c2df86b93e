// Questions a tool puts to the person (a form, a link to open) or to the client (a completion from
// its model, its roots), the way the 2026-07-28 revision of MCP runs them: the call ends with the
// questions, the client answers them, and the tool runs again from the start with the answers, at
// any gateway replica and after any restart. So a question is awaited like any other call: the
// first run's promise never settles (the runner answers with the questions and stops the run), and
// the next run finds the answer under the question's key. A question's key is the tool's own, or
// made from its order in the run and its content, so a changed question is never given the answer to
// another. Each answer is checked against its question; one that does not fit fails the call with a
// ToolError saying why (a client that answers beside the question would only answer beside it again).
import { createHash } from 'node:crypto';
import type { InputRequest } from '@platform/proto';
import { z } from 'zod';
import { checkedForm, type FormSpec, type FormValue } from './elicitation-form.ts';
import { ToolError } from './tool-errors.ts';

/** What the person did with a form: accepted it (with the content), declined, or dismissed it. */
export type ElicitationAnswer<T = Record<string, FormValue>> =
  { readonly action: 'accept'; readonly content: T } | { readonly action: 'decline' } | { readonly action: 'cancel' };

/** A form to put to the person. */
export interface FormQuestion<Form extends FormSpec = FormSpec> {
  /** What to ask, for the person: short, and saying what the answer is for. */
  readonly message: string;
  /** A flat object of primitive fields: a zod object (the answer comes back typed) or its JSON Schema. */
  readonly requestedSchema: Form;
}

/** A page the person is sent to (to sign in elsewhere, to approve a payment); the answer says only whether they went. */
export interface UrlQuestion {
  /** Why the person should go there, shown with the address. */
  readonly message: string;
  /** https (loopback http where the gateway allows it); the person is shown its host. */
  readonly url: string;
}

/** One message of a sampling request, as MCP has it. */
export interface SamplingMessage {
  /** Who says it. */
  readonly role: 'user' | 'assistant';
  /** One content block (`{ type: 'text', text }` most often), or several. */
  readonly content: Readonly<Record<string, unknown>> | readonly Readonly<Record<string, unknown>>[];
}

/** MCP `sampling/createMessage` params: a completion asked of the client's model. */
export interface SamplingRequest {
  /** The conversation for the model to continue. */
  readonly messages: readonly SamplingMessage[];
  /** The most tokens the model may answer with. */
  readonly maxTokens: number;
  /** A system prompt the client may use (or not). */
  readonly systemPrompt?: string;
  /** The sampling temperature asked for; the client's when not given. */
  readonly temperature?: number;
  /** Sequences that end the answer. */
  readonly stopSequences?: readonly string[];
  /** MCP's `modelPreferences` (hints, cost, speed, intelligence), passed on as they are. */
  readonly modelPreferences?: Readonly<Record<string, unknown>>;
  /** Which servers' context the client may add (MCP's `includeContext`). */
  readonly includeContext?: 'none' | 'thisServer' | 'allServers';
  /** Provider-specific metadata, passed on as it is. */
  readonly metadata?: Readonly<Record<string, unknown>>;
}

/** What the client's model answered. */
export interface SamplingAnswer {
  /** Who speaks in the answer (the model: `assistant`). */
  readonly role: 'user' | 'assistant';
  /** One content block (`{ type: 'text', text }` most often), or several. */
  readonly content: Readonly<Record<string, unknown>> | readonly Readonly<Record<string, unknown>>[];
  /** The model that answered, as the client names it. */
  readonly model: string;
  /** Why the model stopped (`endTurn`, `maxTokens`, ...). */
  readonly stopReason?: string;
}

/** One of the client's roots: a directory or file it lets servers see. */
export interface Root {
  /** The root's address (a `file://` URI). */
  readonly uri: string;
  /** A name for it a person reads. */
  readonly name?: string;
}

/** Options of one question. */
export interface QuestionOptions {
  /**
   * The question's key in this call (1 to 64 of letters, digits, `_`, `.`, `-`): where its answer is
   * found. By default one is made from the question's order and content.
   */
  readonly key?: string;
}

/** The questions of one run of a tool: those answered, and those it waits on. */
export interface Questions {
  /** Asked questions without an answer yet, by key, as the call's final event sends them. */
  readonly pending: ReadonlyMap<string, InputRequest>;
  /** A form for the person (`ctx.elicit`): its answer when the call has one, else a promise that never settles. */
  elicit<T>(question: FormQuestion, options?: QuestionOptions): Promise<ElicitationAnswer<T>>;
  /** A page for the person (`ctx.elicitUrl`), answered as `elicit`. */
  elicitUrl(question: UrlQuestion, options?: QuestionOptions): Promise<{ readonly action: 'accept' | 'decline' | 'cancel' }>;
  /** A completion of the client's model (`ctx.sample`), answered as `elicit`. */
  sample(request: SamplingRequest, options?: QuestionOptions): Promise<SamplingAnswer>;
  /** The client's roots (`ctx.listRoots`), answered as `elicit`. */
  listRoots(options?: QuestionOptions): Promise<readonly Root[]>;
}

/** Most questions one run may ask: a tool asking more is asking in a loop. */
export const maxQuestionsPerRun = 16;
const keyPattern = /^[A-Za-z0-9_.-]{1,64}$/;

const elicitResult = z.object({ action: z.enum(['accept', 'decline', 'cancel']), content: z.unknown().optional() });
const contentBlock = z.looseObject({ type: z.string() });
const samplingResult = z.looseObject({
  role: z.enum(['user', 'assistant']),
  content: z.union([contentBlock, z.array(contentBlock)]),
  model: z.string(),
  stopReason: z.string().optional(),
});
const rootsResult = z.looseObject({ roots: z.array(z.looseObject({ uri: z.string().startsWith('file://'), name: z.string().optional() })).max(1_000) });

const never = <T>() => new Promise<T>(() => undefined);

export interface QuestionsOptions {
  /** The answers so far, by key: each the client's bare response as JSON (untrusted). */
  readonly answers: ReadonlyMap<string, string>;
  /** Told once, when the run asks its first question without an answer. */
  readonly onAsked: () => void;
}

/** The questions of one run, answered from `answers`. */
export function createQuestions(options: QuestionsOptions): Questions {
  const { answers } = options;
  const pending = new Map<string, InputRequest>();
  const used = new Set<string>();
  let asked = 0;

  /** The answer to the question `key`, parsed by `read`, or a promise that never settles once the question is recorded. */
  function ask<T>(kind: string, request: InputRequest, explicitKey: string | undefined, read: (answer: unknown) => T | string): Promise<T> {
    asked += 1;
    if (asked > maxQuestionsPerRun) throw new TypeError(`a tool run may ask at most ${maxQuestionsPerRun} questions`);
    const key = explicitKey ?? `${kind}-${asked}-${createHash('sha256').update(JSON.stringify(request)).digest('hex').slice(0, 12)}`;
    if (!keyPattern.test(key)) throw new TypeError(`${kind}: key must be 1 to 64 letters, digits, "_", "." or "-"`);
    if (used.has(key)) throw new TypeError(`${kind}: key ${key} is used by another question of this call`);
    used.add(key);
    const raw = answers.get(key);
    if (raw !== undefined) {
      let parsed: unknown;
      try {
        parsed = JSON.parse(raw);
      } catch {
        parsed = undefined;
      }
      const answer = parsed === undefined ? 'is not JSON' : read(parsed);
      if (typeof answer !== 'string') return Promise.resolve(answer);
      return Promise.reject(
        new ToolError('UNFIT_ANSWER', `The client's answer to the question ${key} does not fit it: ${answer.slice(0, 300)}.`, { details: { question: key } }),
      );
    }
    pending.set(key, request);
    if (pending.size === 1) options.onAsked();
    return never<T>();
  }

  return {
    pending,
    elicit<T>(question: FormQuestion, questionOptions: QuestionOptions = {}) {
      if (typeof question.message !== 'string' || question.message.trim() === '') throw new TypeError('elicit: message must say what is asked');
      const form = checkedForm<T>(question.requestedSchema);
      const request: InputRequest = { form: { message: question.message, requestedSchemaJson: JSON.stringify(form.schema) } };
      return ask<ElicitationAnswer<T>>('elicit', request, questionOptions.key, (answer) => {
        const result = elicitResult.safeParse(answer);
        if (!result.success) return 'is not an elicitation result';
        if (result.data.action !== 'accept') return { action: result.data.action };
        const content = form.check(result.data.content ?? {});
        return content.ok ? { action: 'accept', content: content.value } : content.problem;
      });
    },
    elicitUrl(question, questionOptions = {}) {
      if (typeof question.message !== 'string' || question.message.trim() === '') throw new TypeError('elicitUrl: message must say why the page is opened');
      if (!URL.canParse(question.url) || !/^https?:$/.test(new URL(question.url).protocol))
        throw new TypeError('elicitUrl: url must be an absolute http or https URL');
      return ask('elicit-url', { url: { message: question.message, url: question.url } }, questionOptions.key, (answer) => {
        const result = elicitResult.safeParse(answer);
        return result.success ? { action: result.data.action } : 'is not an elicitation result';
      });
    },
    sample(samplingRequest, questionOptions = {}) {
      if (!Array.isArray(samplingRequest.messages) || samplingRequest.messages.length === 0)
        throw new TypeError('sample: messages must hold at least one message');
      if (!Number.isInteger(samplingRequest.maxTokens) || samplingRequest.maxTokens < 1) throw new TypeError('sample: maxTokens must be a positive integer');
      return ask<SamplingAnswer>('sample', { samplingParamsJson: JSON.stringify(samplingRequest) }, questionOptions.key, (answer) => {
        const result = samplingResult.safeParse(answer);
        return result.success ? result.data : 'is not a sampling result';
      });
    },
    listRoots(questionOptions = {}) {
      return ask<readonly Root[]>('roots', { roots: {} }, questionOptions.key, (answer) => {
        const result = rootsResult.safeParse(answer);
        return result.success ? result.data.roots : 'is not a roots list';
      });
    },
  };
}
