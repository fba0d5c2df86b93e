import { describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { ToolError } from './tool-errors.ts';
import { createQuestions, maxQuestionsPerRun, type FormQuestion, type SamplingRequest } from './tool-questions.ts';

const nameForm = { message: 'Who should be told?', requestedSchema: z.object({ name: z.string().min(2), urgent: z.boolean().default(false) }) };
const signIn = { message: 'Sign in at the billing portal', url: 'https://billing.example/sign-in?state=s-1' };
const haiku: SamplingRequest = { messages: [{ role: 'user', content: { type: 'text', text: 'A haiku about boilers' } }], maxTokens: 60 };

/** Questions of a run that has the answers `answers` (each the client's bare response, given as a value or as raw JSON). */
function questionsWith(answers: Record<string, unknown> = {}, onAsked = vi.fn()) {
  const raw = new Map(Object.entries(answers).map(([key, value]) => [key, typeof value === 'string' ? value : JSON.stringify(value)]));
  return { questions: createQuestions({ answers: raw, onAsked }), onAsked };
}

const marker = Symbol('not settled');

/** What `promise` settled with by the next macrotask, or the marker when it has not settled. */
async function settledOrMarker(promise: Promise<unknown>): Promise<unknown> {
  const tick = new Promise((resolve) => {
    setImmediate(() => {
      resolve(marker);
    });
  });
  return Promise.race([
    promise.then(
      (value) => ({ value }),
      (error: unknown) => ({ error }),
    ),
    tick,
  ]);
}

/** The one key `questions` waits on. */
function onlyKey(questions: ReturnType<typeof createQuestions>): string {
  const keys = [...questions.pending.keys()];
  expect(keys).toHaveLength(1);
  return keys[0] as string;
}

/** The rejection of `promise`, which must reject. */
async function rejectionOf(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => {
      throw new Error('expected a rejection');
    },
    (error: unknown) => error,
  );
}

describe('a question without an answer', () => {
  it('records a form as the pending InputRequest, its schema as the JSON MCP sends, and never settles', async () => {
    const { questions, onAsked } = questionsWith();
    const answer = questions.elicit(nameForm);
    const key = onlyKey(questions);
    expect(key).toMatch(/^elicit-1-[0-9a-f]{12}$/);
    expect(questions.pending.get(key)).toEqual({
      form: {
        message: 'Who should be told?',
        requestedSchemaJson: JSON.stringify({
          type: 'object',
          properties: { name: { type: 'string', minLength: 2 }, urgent: { default: false, type: 'boolean' } },
          required: ['name'],
        }),
      },
    });
    expect(await settledOrMarker(answer)).toBe(marker);
    expect(onAsked).toHaveBeenCalledTimes(1);
  });

  it('records a page to open as the pending url request', async () => {
    const { questions } = questionsWith();
    const answer = questions.elicitUrl(signIn);
    const key = onlyKey(questions);
    expect(key).toMatch(/^elicit-url-1-[0-9a-f]{12}$/);
    expect(questions.pending.get(key)).toEqual({ url: { message: signIn.message, url: signIn.url } });
    expect(await settledOrMarker(answer)).toBe(marker);
  });

  it('records a sampling request as its params JSON', async () => {
    const { questions } = questionsWith();
    const answer = questions.sample({ ...haiku, systemPrompt: 'Be brief.', temperature: 0.2 });
    const key = onlyKey(questions);
    expect(key).toMatch(/^sample-1-[0-9a-f]{12}$/);
    expect(questions.pending.get(key)).toEqual({ samplingParamsJson: JSON.stringify({ ...haiku, systemPrompt: 'Be brief.', temperature: 0.2 }) });
    expect(await settledOrMarker(answer)).toBe(marker);
  });

  it('records a roots request as an empty roots message', async () => {
    const { questions } = questionsWith();
    const answer = questions.listRoots();
    const key = onlyKey(questions);
    expect(key).toMatch(/^roots-1-[0-9a-f]{12}$/);
    expect(questions.pending.get(key)).toEqual({ roots: {} });
    expect(await settledOrMarker(answer)).toBe(marker);
  });

  it('tells onAsked once however many questions go unanswered', async () => {
    const { questions, onAsked } = questionsWith();
    const answers = [questions.elicit(nameForm), questions.elicitUrl(signIn), questions.sample(haiku), questions.listRoots()];
    expect(questions.pending.size).toBe(4);
    expect(onAsked).toHaveBeenCalledTimes(1);
    for (const answer of answers) expect(await settledOrMarker(answer)).toBe(marker);
  });

  it('does not tell onAsked when every question has its answer', async () => {
    const { questions, onAsked } = questionsWith({ roots: { roots: [] } });
    await questions.listRoots({ key: 'roots' });
    expect(onAsked).not.toHaveBeenCalled();
    expect(questions.pending.size).toBe(0);
  });
});

describe('question keys', () => {
  it('makes the same key for the same question in the same place of another run', () => {
    const first = questionsWith().questions;
    const second = questionsWith().questions;
    void first.elicit(nameForm);
    void first.sample(haiku);
    void second.elicit(nameForm);
    void second.sample(haiku);
    expect([...first.pending.keys()]).toEqual([...second.pending.keys()]);
  });

  it('makes another key when the question changes, so an answer to one is not given to the other', () => {
    const keyOf = (ask: (questions: ReturnType<typeof createQuestions>) => void) => {
      const { questions } = questionsWith();
      ask(questions);
      return onlyKey(questions);
    };
    const original = keyOf((q) => void q.elicit(nameForm));
    expect(keyOf((q) => void q.elicit({ ...nameForm, message: 'Who else should be told?' }))).not.toBe(original);
    expect(keyOf((q) => void q.elicit({ ...nameForm, requestedSchema: z.object({ name: z.string().min(3) }) }))).not.toBe(original);
    const url = keyOf((q) => void q.elicitUrl(signIn));
    expect(keyOf((q) => void q.elicitUrl({ ...signIn, url: 'https://billing.example/sign-in?state=s-2' }))).not.toBe(url);
    const sample = keyOf((q) => void q.sample(haiku));
    expect(keyOf((q) => void q.sample({ ...haiku, maxTokens: 61 }))).not.toBe(sample);
  });

  it('uses a key the tool gives', () => {
    const { questions } = questionsWith();
    void questions.elicit(nameForm, { key: 'who' });
    void questions.listRoots({ key: 'roots.v2-x_1' });
    expect([...questions.pending.keys()]).toEqual(['who', 'roots.v2-x_1']);
  });

  it('throws TypeError for a key used twice in a run', () => {
    const { questions } = questionsWith();
    void questions.elicit(nameForm, { key: 'who' });
    expect(() => questions.elicitUrl(signIn, { key: 'who' })).toThrow(new TypeError('elicit-url: key who is used by another question of this call'));
  });

  it('gives the same question asked twice in a run two keys, its order being part of each', () => {
    const { questions } = questionsWith();
    void questions.listRoots();
    void questions.listRoots();
    expect(questions.pending.size).toBe(2);
  });

  it.each(['', 'has space', 'a'.repeat(65), 'slash/key', 'ünï'])('throws TypeError for the key %j', (key) => {
    const { questions } = questionsWith();
    expect(() => questions.listRoots({ key })).toThrow(new TypeError('roots: key must be 1 to 64 letters, digits, "_", "." or "-"'));
  });

  it(`throws TypeError past ${maxQuestionsPerRun} questions in a run`, () => {
    const { questions } = questionsWith();
    for (let index = 0; index < maxQuestionsPerRun; index += 1) void questions.listRoots();
    expect(questions.pending.size).toBe(16);
    expect(() => questions.listRoots()).toThrow(new TypeError('a tool run may ask at most 16 questions'));
  });

  it('counts answered questions among the 16', () => {
    const answers = Object.fromEntries(Array.from({ length: 16 }, (_, index) => [`r${index}`, { roots: [] }]));
    const { questions } = questionsWith(answers);
    for (let index = 0; index < 16; index += 1) void questions.listRoots({ key: `r${index}` });
    expect(() => questions.listRoots({ key: 'one-more' })).toThrow(TypeError);
  });
});

describe('questions refused before they are asked', () => {
  it('throws TypeError for a form without a message, or with a form MCP does not allow', () => {
    const { questions } = questionsWith();
    expect(() => questions.elicit({ ...nameForm, message: '  ' })).toThrow(new TypeError('elicit: message must say what is asked'));
    expect(() => questions.elicit({ message: 'Where?', requestedSchema: z.object({ address: z.object({ city: z.string() }) }) })).toThrow(
      /^elicit: requestedSchema\.properties\.address is outside/,
    );
    expect(questions.pending.size).toBe(0);
  });

  it('throws TypeError for a page without a message, or a URL that is not http(s)', () => {
    const { questions } = questionsWith();
    expect(() => questions.elicitUrl({ ...signIn, message: '' })).toThrow(new TypeError('elicitUrl: message must say why the page is opened'));
    for (const url of ['javascript:alert(1)', '/relative', 'ftp://files.example/']) {
      expect(() => questions.elicitUrl({ ...signIn, url })).toThrow(new TypeError('elicitUrl: url must be an absolute http or https URL'));
    }
  });

  it('throws TypeError for a sampling request without messages or a positive integer maxTokens', () => {
    const { questions } = questionsWith();
    expect(() => questions.sample({ ...haiku, messages: [] })).toThrow(new TypeError('sample: messages must hold at least one message'));
    expect(() => questions.sample({ ...haiku, maxTokens: 0 })).toThrow(new TypeError('sample: maxTokens must be a positive integer'));
    expect(() => questions.sample({ ...haiku, maxTokens: 1.5 })).toThrow(new TypeError('sample: maxTokens must be a positive integer'));
  });
});

describe('an answer under the question key', () => {
  it('resolves an accepted form with the content parsed by the zod form (defaults applied)', async () => {
    const { questions } = questionsWith({ who: { action: 'accept', content: { name: 'Ada' } } });
    const answer = await questions.elicit<{ name: string; urgent: boolean }>(nameForm, { key: 'who' });
    expect(answer).toEqual({ action: 'accept', content: { name: 'Ada', urgent: false } });
    expect(questions.pending.size).toBe(0);
  });

  it('resolves an accepted JSON Schema form with the content as given', async () => {
    const jsonForm: FormQuestion = { message: 'How many?', requestedSchema: { type: 'object', properties: { count: { type: 'integer', minimum: 1 } } } };
    const { questions } = questionsWith({ many: { action: 'accept', content: { count: 3 } } });
    expect(await questions.elicit(jsonForm, { key: 'many' })).toEqual({ action: 'accept', content: { count: 3 } });
  });

  it.each(['decline', 'cancel'] as const)('resolves a form the person chose to %s, without content', async (action) => {
    const { questions } = questionsWith({ who: { action, content: { name: 'ignored' } } });
    expect(await questions.elicit(nameForm, { key: 'who' })).toEqual({ action });
  });

  it('finds the answer under the key the first run made', async () => {
    const first = questionsWith().questions;
    void first.elicit(nameForm);
    const key = onlyKey(first);
    const { questions } = questionsWith({ [key]: { action: 'accept', content: { name: 'Grace', urgent: true } } });
    expect(await questions.elicit(nameForm)).toEqual({ action: 'accept', content: { name: 'Grace', urgent: true } });
  });

  it.each(['accept', 'decline', 'cancel'] as const)('resolves a page the person answered with %s', async (action) => {
    const { questions } = questionsWith({ portal: { action } });
    expect(await questions.elicitUrl(signIn, { key: 'portal' })).toEqual({ action });
  });

  it("resolves a sampling request with the model's answer", async () => {
    const completion = { role: 'assistant', content: { type: 'text', text: 'Warm pipes hum softly' }, model: 'small-1', stopReason: 'endTurn' };
    const { questions } = questionsWith({ poem: completion });
    expect(await questions.sample(haiku, { key: 'poem' })).toEqual(completion);
  });

  it('resolves a roots request with the roots', async () => {
    const roots = [{ uri: 'file:///home/ada/project', name: 'project' }, { uri: 'file:///tmp' }];
    const { questions } = questionsWith({ roots: { roots } });
    expect(await questions.listRoots({ key: 'roots' })).toEqual(roots);
  });

  it('answers one question and waits on another in the same run', async () => {
    const { questions, onAsked } = questionsWith({ roots: { roots: [] } });
    expect(await questions.listRoots({ key: 'roots' })).toEqual([]);
    const waiting = questions.elicitUrl(signIn, { key: 'portal' });
    expect([...questions.pending.keys()]).toEqual(['portal']);
    expect(onAsked).toHaveBeenCalledTimes(1);
    expect(await settledOrMarker(waiting)).toBe(marker);
  });
});

describe('an answer that does not fit its question', () => {
  it.each([
    ['not JSON', 'who', () => questionsWith({ who: '{"action": ' }).questions.elicit(nameForm, { key: 'who' }), 'is not JSON'],
    [
      'no elicitation result',
      'who',
      () => questionsWith({ who: { accepted: true } }).questions.elicit(nameForm, { key: 'who' }),
      'is not an elicitation result',
    ],
    [
      'an action MCP does not have',
      'who',
      () => questionsWith({ who: { action: 'maybe' } }).questions.elicit(nameForm, { key: 'who' }),
      'is not an elicitation result',
    ],
    [
      'content outside the form',
      'who',
      () => questionsWith({ who: { action: 'accept', content: { name: 'Ada', admin: true } } }).questions.elicit(nameForm, { key: 'who' }),
      'admin is not a field of the form',
    ],
    [
      'content of the wrong type',
      'who',
      () => questionsWith({ who: { action: 'accept', content: { name: 7 } } }).questions.elicit(nameForm, { key: 'who' }),
      'name must be a string',
    ],
    ['accepted without content', 'who', () => questionsWith({ who: { action: 'accept' } }).questions.elicit(nameForm, { key: 'who' }), 'name is required'],
    [
      'a url answer of another shape',
      'portal',
      () => questionsWith({ portal: { ok: true } }).questions.elicitUrl(signIn, { key: 'portal' }),
      'is not an elicitation result',
    ],
    [
      'a sampling answer without a model',
      'poem',
      () => questionsWith({ poem: { role: 'assistant', content: { type: 'text', text: 'x' } } }).questions.sample(haiku, { key: 'poem' }),
      'is not a sampling result',
    ],
    [
      'roots that are not file URIs',
      'roots',
      () => questionsWith({ roots: { roots: [{ uri: 'https://example.com/' }] } }).questions.listRoots({ key: 'roots' }),
      'is not a roots list',
    ],
    ['a roots answer that is an array', 'roots', () => questionsWith({ roots: [] }).questions.listRoots({ key: 'roots' }), 'is not a roots list'],
  ])('rejects %s with a ToolError UNFIT_ANSWER naming the key', async (_case, key, ask, why) => {
    const error = await rejectionOf(ask());
    expect(error).toBeInstanceOf(ToolError);
    expect(error).toMatchObject({
      code: 'UNFIT_ANSWER',
      message: `The client's answer to the question ${key} does not fit it: ${why}.`,
      details: { question: key },
    });
  });

  it('keeps the reason short whatever the answer holds', async () => {
    const longName = 'n'.repeat(400);
    const error = await rejectionOf(questionsWith({ who: { action: 'accept', content: { [longName]: 1 } } }).questions.elicit(nameForm, { key: 'who' }));
    expect((error as ToolError).message.length).toBeLessThan(400);
  });
});
