import type { InputRequest__Output, InputRequired__Output } from '@platform/proto';
import { thrownBy } from '@platform/devtools/thrown';
import { describe, expect, it } from 'vitest';
import { answersOf, missingCapabilities, questionLimits, questionsOf, UnaskableQuestion, type QuestionPolicy } from './input-requests.ts';

const httpsOnly: QuestionPolicy = { allowLoopbackHttp: false };
const devStack: QuestionPolicy = { allowLoopbackHttp: true };

const nameSchema = { type: 'object', properties: { name: { type: 'string', minLength: 2 } }, required: ['name'] };
const form = (message: string, schema: unknown = nameSchema): InputRequest__Output => ({
  request: 'form',
  form: { message, requestedSchemaJson: typeof schema === 'string' ? schema : JSON.stringify(schema) },
});
const url = (link: string, message = 'Sign in at the billing portal'): InputRequest__Output => ({ request: 'url', url: { message, url: link } });
const sampling = (params: unknown): InputRequest__Output => ({
  request: 'samplingParamsJson',
  samplingParamsJson: typeof params === 'string' ? params : JSON.stringify(params),
});
const roots: InputRequest__Output = { request: 'roots', roots: {} };
const haiku = { messages: [{ role: 'user', content: { type: 'text', text: 'A haiku about boilers' } }], maxTokens: 60 };

const round = (requests: Record<string, InputRequest__Output>): InputRequired__Output => ({ requests });

/** The UnaskableQuestion `questionsOf` throws; fails the test when it asks. */
const refusal = (requests: Record<string, InputRequest__Output>, policy = httpsOnly): string =>
  thrownBy(() => questionsOf(round(requests), policy), UnaskableQuestion).message;

describe('questionsOf maps each question to its MCP input request', () => {
  it('puts a form as elicitation/create params without a mode, needing elicitation.form', () => {
    expect(questionsOf(round({ who: form('Who should be told?') }), httpsOnly)).toEqual({
      inputRequests: { who: { method: 'elicitation/create', params: { message: 'Who should be told?', requestedSchema: nameSchema } } },
      asked: { who: 'elicitation/create' },
      required: { elicitation: { form: {} } },
      described: ['a form ("Who should be told?")'],
    });
  });

  it('passes a form on as MCP defines it: a keyword MCP does not define (a pattern, a remote $ref) is dropped', () => {
    const hostile = {
      type: 'object',
      $id: 'https://evil.example/form',
      $schema: 'http://169.254.169.254/schema',
      $ref: 'http://169.254.169.254/',
      $defs: { x: { type: 'string' } },
      allOf: [{ properties: { code: { pattern: '^(a+)+$' } } }],
      patternProperties: { '^(b|b)*$': { type: 'string' } },
      properties: { code: { type: 'string', pattern: '^(a+)+$', maxLength: 10, $ref: 'http://169.254.169.254/' } },
      required: ['code'],
    };
    expect(questionsOf(round({ code: form('Your code?', hostile) }), httpsOnly).inputRequests.code?.params).toEqual({
      message: 'Your code?',
      requestedSchema: { type: 'object', properties: { code: { type: 'string', maxLength: 10 } }, required: ['code'] },
    });
  });

  it('puts a link with mode url and the host it opens appended to the message, needing elicitation.url', () => {
    expect(questionsOf(round({ portal: url('https://billing.example:8443/sign-in?state=s-1') }), httpsOnly)).toEqual({
      inputRequests: {
        portal: {
          method: 'elicitation/create',
          params: {
            mode: 'url',
            message: 'Sign in at the billing portal\n\nThe link opens billing.example:8443.',
            url: 'https://billing.example:8443/sign-in?state=s-1',
          },
        },
      },
      asked: { portal: 'elicitation/create' },
      required: { elicitation: { url: {} } },
      described: ['a page to open at billing.example:8443'],
    });
  });

  it('shows the host of an internationalized link as the URL parser writes it (punycode)', () => {
    const asked = questionsOf(round({ portal: url('https://bïlling.example/') }), httpsOnly);
    expect(asked.inputRequests.portal).toMatchObject({
      params: { url: 'https://xn--blling-iwa.example/', message: expect.stringMatching(/opens xn--blling-iwa\.example\.$/) as unknown },
    });
  });

  it('puts a sampling request as its params, needing sampling', () => {
    expect(questionsOf(round({ poem: sampling(haiku) }), httpsOnly)).toEqual({
      inputRequests: { poem: { method: 'sampling/createMessage', params: haiku } },
      asked: { poem: 'sampling/createMessage' },
      required: { sampling: {} },
      described: ["a completion from the client's model"],
    });
  });

  it('needs sampling.tools for a sampling request that offers tools', () => {
    const withTools = { ...haiku, tools: [{ name: 'lookup', inputSchema: { type: 'object' } }] };
    const asked = questionsOf(round({ poem: sampling(withTools) }), httpsOnly);
    expect(asked.required).toEqual({ sampling: { tools: {} } });
    expect(asked.inputRequests.poem).toEqual({ method: 'sampling/createMessage', params: withTools });
  });

  it('puts a roots request as roots/list, needing roots', () => {
    expect(questionsOf(round({ roots }), httpsOnly)).toEqual({
      inputRequests: { roots: { method: 'roots/list' } },
      asked: { roots: 'roots/list' },
      required: { roots: {} },
      described: ["the client's roots"],
    });
  });

  it('puts several questions of every kind together, with every capability they need', () => {
    const asked = questionsOf(round({ who: form('Who?'), portal: url('https://a.example/'), poem: sampling(haiku), roots }), httpsOnly);
    expect(Object.keys(asked.inputRequests)).toEqual(['who', 'portal', 'poem', 'roots']);
    expect(asked.asked).toEqual({ who: 'elicitation/create', portal: 'elicitation/create', poem: 'sampling/createMessage', roots: 'roots/list' });
    expect(asked.required).toEqual({ elicitation: { form: {}, url: {} }, sampling: {}, roots: {} });
  });

  it(`puts ${questionLimits.maxQuestions} questions at once`, () => {
    const requests = Object.fromEntries(Array.from({ length: questionLimits.maxQuestions }, (_, index) => [`r${index}`, roots]));
    expect(Object.keys(questionsOf(round(requests), httpsOnly).inputRequests)).toHaveLength(16);
  });

  it('allows http on loopback only when the policy does', () => {
    for (const link of ['http://127.0.0.1:3000/approve', 'http://localhost:3000/approve', 'http://[::1]:3000/approve']) {
      expect(questionsOf(round({ portal: url(link) }), devStack).inputRequests.portal).toMatchObject({ params: { mode: 'url', url: link } });
      expect(refusal({ portal: url(link) })).toBe('question portal links to http (only https is allowed)');
    }
  });
});

describe('questionsOf cleans the text it shows', () => {
  it('removes control and direction characters from a form message, and says so in the description', () => {
    const asked = questionsOf(round({ who: form('Delete\u0007 \u001b[2Jthe \u202eboiler\u202c?\r\nSure?') }), httpsOnly);
    expect(asked.inputRequests.who).toMatchObject({ params: { message: 'Delete [2Jthe boiler?\nSure?' } });
    expect(asked.described).toEqual(['a form ("Delete [2Jthe boiler?\nSure?")']);
  });

  it('removes them from a link message too, and trims it', () => {
    const asked = questionsOf(round({ portal: url('https://a.example/', '  Approve\u0000 the \u2066payment\u2069  ') }), httpsOnly);
    expect(asked.inputRequests.portal).toMatchObject({ params: { message: 'Approve the payment\n\nThe link opens a.example.' } });
  });

  it('clips a long message', () => {
    const asked = questionsOf(round({ who: form('x'.repeat(10_000)) }), httpsOnly);
    const message = (asked.inputRequests.who as { params: { message: string } }).params.message;
    expect(message).toHaveLength(questionLimits.maxMessageLength);
    expect(message.endsWith('…')).toBe(true);
  });
});

describe('questionsOf refuses what cannot be asked, naming the question', () => {
  it('refuses a round without questions', () => {
    expect(refusal({})).toBe('the call ended with questions but asked none');
  });

  it(`refuses more than ${questionLimits.maxQuestions} questions at once`, () => {
    const requests = Object.fromEntries(Array.from({ length: 17 }, (_, index) => [`r${index}`, roots]));
    expect(refusal(requests)).toBe('the call asked 17 questions at once; at most 16 are put');
  });

  it.each(['has space', 'a'.repeat(65), 'slash/key', ''])('refuses the key %j', (key) => {
    expect(refusal({ [key]: roots })).toBe('a question\'s key is not 1 to 64 of letters, digits, "_", "." or "-"');
  });

  it('puts a question keyed __proto__ under that key, or refuses it, never losing it', () => {
    // A map decoded from JSON (or built by hand) can hold "__proto__" as an own key, and the key pattern admits it.
    const requests = JSON.parse('{"__proto__":{"request":"roots","roots":{}},"who":{"request":"roots","roots":{}}}') as Record<string, InputRequest__Output>;
    let asked: ReturnType<typeof questionsOf> | undefined;
    try {
      asked = questionsOf(round(requests), httpsOnly);
    } catch (error) {
      expect(error).toBeInstanceOf(UnaskableQuestion);
      return;
    }
    expect(Object.keys(asked.inputRequests)).toEqual(['__proto__', 'who']);
    expect(Object.keys(asked.asked)).toEqual(['__proto__', 'who']);
  });

  it('refuses a nested form, a form that is not JSON, and one that is not an object', () => {
    const nested = { type: 'object', properties: { address: { type: 'object', properties: { city: { type: 'string' } } } } };
    expect(refusal({ who: form('Where?', nested) })).toBe('question who asks for a form outside what MCP allows (a flat object of primitive fields)');
    expect(refusal({ who: form('Where?', '{"type":') })).toBe("question who's requested schema is not JSON");
    expect(refusal({ who: form('Where?', '[]') })).toBe("question who's requested schema is not a JSON object");
  });

  it('refuses a requested schema larger than 64 KiB', () => {
    const big = { type: 'object', properties: { name: { type: 'string', description: 'x'.repeat(questionLimits.maxRequestBytes) } } };
    expect(refusal({ who: form('Name?', big) })).toBe("question who's requested schema is larger than 65536 bytes");
  });

  it.each([
    ['without messages', { maxTokens: 10 }],
    ['without maxTokens', { messages: haiku.messages }],
    ['with a role MCP does not have', { ...haiku, messages: [{ role: 'system', content: { type: 'text', text: 'x' } }] }],
    ['with messages that are not a list', { ...haiku, messages: 'hello' }],
  ])('refuses a sampling request %s', (_case, params) => {
    expect(refusal({ poem: sampling(params) })).toBe('question poem is a sampling request MCP does not accept');
  });

  it('refuses a sampling request that is not JSON, or not an object', () => {
    expect(refusal({ poem: sampling('{') })).toBe("question poem's sampling request is not JSON");
    expect(refusal({ poem: sampling('"text"') })).toBe("question poem's sampling request is not a JSON object");
  });

  it.each(['https://user:pass@billing.example/', 'https://user@billing.example/'])('refuses the link %s with user information', (link) => {
    expect(refusal({ portal: url(link) })).toBe('question portal has a URL with user information');
  });

  it.each([
    'https://billing.example/a b',
    'https://billing.example/\ta',
    'https://billing.example/\u202eexe.pdf',
    'https://billing.example/\u200bpay',
    'https://pay\u00adpal.example/',
    'not a url',
    ' https://billing.example/',
  ])('refuses the link %j', (link) => {
    expect(refusal({ portal: url(link) })).toBe('question portal has no valid URL');
  });

  it.each([
    ['http://billing.example/', devStack, 'question portal links to http (only https, or http on loopback, is allowed)'],
    ['http://127.0.0.1:3000/', httpsOnly, 'question portal links to http (only https is allowed)'],
    ['javascript:alert(1)', devStack, 'question portal links to javascript (only https, or http on loopback, is allowed)'],
    ['ftp://files.example/', httpsOnly, 'question portal links to ftp (only https is allowed)'],
  ])('refuses the link %s', (link, policy, message) => {
    expect(refusal({ portal: url(link) }, policy)).toBe(message);
  });

  it('refuses a message that is empty once cleaned', () => {
    expect(refusal({ who: form(' \u0007\u202e ') })).toBe('question who has no message');
    expect(refusal({ portal: url('https://a.example/', '') })).toBe('question portal has no message');
  });

  it('refuses a question of no kind', () => {
    expect(refusal({ odd: {} })).toBe('question odd is of no kind MCP knows');
  });
});

describe('missingCapabilities', () => {
  it('finds nothing missing when every capability is declared', () => {
    expect(
      missingCapabilities(
        { elicitation: { form: {}, url: {} }, sampling: { tools: {} }, roots: {} },
        {
          elicitation: { form: {}, url: {} },
          sampling: { tools: {} },
          roots: { listChanged: true },
        },
      ),
    ).toBeUndefined();
  });

  it('counts a bare elicitation: {} as form, but not as url', () => {
    expect(missingCapabilities({ elicitation: { form: {} } }, { elicitation: {} })).toBeUndefined();
    expect(missingCapabilities({ elicitation: { url: {} } }, { elicitation: {} })).toEqual({ elicitation: { url: {} } });
    expect(missingCapabilities({ elicitation: { form: {}, url: {} } }, { elicitation: {} })).toEqual({ elicitation: { url: {} } });
  });

  it('does not count elicitation with url alone as form', () => {
    expect(missingCapabilities({ elicitation: { form: {} } }, { elicitation: { url: {} } })).toEqual({ elicitation: { form: {} } });
  });

  it('names the nested members missing', () => {
    expect(missingCapabilities({ sampling: { tools: {} } }, { sampling: {} })).toEqual({ sampling: { tools: {} } });
    expect(missingCapabilities({ sampling: {} }, { sampling: {} })).toBeUndefined();
  });

  it('names every capability required when none were declared', () => {
    const required = { elicitation: { form: {} }, sampling: {}, roots: {} };
    expect(missingCapabilities(required, undefined)).toEqual(required);
    expect(missingCapabilities(required, {})).toEqual(required);
  });

  it('finds nothing missing when nothing is required', () => {
    expect(missingCapabilities({}, undefined)).toBeUndefined();
  });
});

describe('answersOf', () => {
  const accepted = { action: 'accept', content: { name: 'Ada' } };
  const completion = { role: 'assistant', content: { type: 'text', text: 'Warm pipes hum' }, model: 'small-1' };

  it('takes the bare response of the asked method for each asked key, as JSON', () => {
    const answers = answersOf(
      {},
      { who: 'elicitation/create', portal: 'elicitation/create', poem: 'sampling/createMessage', roots: 'roots/list' },
      { who: accepted, portal: { action: 'decline' }, poem: completion, roots: { roots: [{ uri: 'file:///home/ada' }] } },
    );
    expect(answers).toEqual({
      who: JSON.stringify(accepted),
      portal: '{"action":"decline"}',
      poem: JSON.stringify(completion),
      roots: '{"roots":[{"uri":"file:///home/ada"}]}',
    });
  });

  it('keeps the sealed answer over a new one for the same key', () => {
    expect(answersOf({ who: '{"action":"decline"}' }, { who: 'elicitation/create' }, { who: accepted })).toEqual({ who: '{"action":"decline"}' });
  });

  it('keeps the answers it had beside this round’s', () => {
    expect(answersOf({ earlier: '{"roots":[]}' }, { who: 'elicitation/create' }, { who: accepted })).toEqual({
      earlier: '{"roots":[]}',
      who: JSON.stringify(accepted),
    });
  });

  it('takes no answer for a key the last round did not ask', () => {
    expect(answersOf({}, { who: 'elicitation/create' }, { who: accepted, unasked: accepted })).toEqual({ who: JSON.stringify(accepted) });
  });

  it('takes no answer that is not the response of the method asked', () => {
    const asked = { who: 'elicitation/create', poem: 'sampling/createMessage', roots: 'roots/list' } as const;
    expect(answersOf({}, asked, { who: completion, poem: accepted, roots: accepted })).toEqual({});
    expect(answersOf({}, asked, { who: { action: 'maybe' }, poem: { ...completion, model: 7 }, roots: { roots: 'all' } })).toEqual({});
  });

  it('takes a response wrapped in a JSON-RPC envelope as no answer', () => {
    expect(answersOf({}, { who: 'elicitation/create' }, { who: { jsonrpc: '2.0', id: 1, result: accepted } })).toEqual({});
  });

  it('takes any object answer within bounds when there is no state', () => {
    expect(answersOf({}, undefined, { who: accepted, anything: { shape: 'of its own' } })).toEqual({
      who: JSON.stringify(accepted),
      anything: '{"shape":"of its own"}',
    });
  });

  it('drops answers that are not objects', () => {
    expect(answersOf({}, undefined, { text: 'yes', number: 1, list: [accepted], nothing: null, flag: true })).toEqual({});
  });

  it('drops an answer over 64 KiB and keeps one at the bound', () => {
    const padding = (bytes: number) => ({ pad: 'x'.repeat(bytes - '{"pad":""}'.length) });
    const answers = answersOf({}, undefined, { fits: padding(questionLimits.maxAnswerBytes), over: padding(questionLimits.maxAnswerBytes + 1) });
    expect(Object.keys(answers)).toEqual(['fits']);
    expect(Buffer.byteLength(answers.fits ?? '')).toBe(65_536);
  });

  it('measures the bound in bytes, not characters', () => {
    const answers = answersOf({}, undefined, { wide: { pad: 'é'.repeat(40_000) } });
    expect(answers).toEqual({});
  });

  it('drops answers under keys that are not 1 to 64 of letters, digits, "_", "." or "-"', () => {
    expect(answersOf({}, undefined, { 'bad key': accepted, ['k'.repeat(65)]: accepted, good: accepted })).toEqual({ good: JSON.stringify(accepted) });
  });

  it('keeps an answer under the key __proto__ as an own key, or drops it, never anything else', () => {
    const responses = JSON.parse('{"__proto__":{"action":"accept","content":{"name":"Ada"}}}') as Record<string, unknown>;
    const answers = answersOf({}, undefined, responses);
    expect(Object.getPrototypeOf(answers)).toBe(Object.prototype);
    expect([[], ['__proto__']]).toContainEqual(Object.keys(answers));
  });

  it(`caps the answers at ${questionLimits.maxAnswers}, the ones it had first`, () => {
    const had = Object.fromEntries(Array.from({ length: 60 }, (_, index) => [`had${index}`, '{}']));
    const responses = Object.fromEntries(Array.from({ length: 10 }, (_, index) => [`new${index}`, { n: index }]));
    const answers = answersOf(had, undefined, responses);
    expect(Object.keys(answers)).toHaveLength(64);
    expect(Object.keys(answers).slice(60)).toEqual(['new0', 'new1', 'new2', 'new3']);
  });

  it('takes nothing new when the state already carries 64 answers', () => {
    const had = Object.fromEntries(Array.from({ length: 64 }, (_, index) => [`had${index}`, '{}']));
    expect(answersOf(had, undefined, { extra: { n: 1 } })).toEqual(had);
  });

  it('returns the answers it had when the round brings no responses', () => {
    expect(answersOf({ who: '{"action":"cancel"}' }, { roots: 'roots/list' }, undefined)).toEqual({ who: '{"action":"cancel"}' });
  });
});
