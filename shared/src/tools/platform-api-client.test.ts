import type { IncomingMessage, ServerResponse } from 'node:http';
import { listen, rejectionOf, until, type Listening } from '@platform/tool-sdk/testing';
import { unsafeCharacterCases } from '@platform/devtools/unsafe-text';
import { afterEach, describe, expect, it } from 'vitest';
import { addressWithin, createPlatformApiClient } from './platform-api-client.ts';
import { ToolError } from './tool-errors.ts';

const servers: Listening[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

interface Seen {
  readonly method: string | undefined;
  readonly url: string | undefined;
  readonly authorization: string | undefined;
  readonly body: string;
}

async function serve(answer: (req: IncomingMessage, res: ServerResponse) => void): Promise<{ url: string; seen: Seen[] }> {
  const seen: Seen[] = [];
  const server = await listen((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      seen.push({ method: req.method, url: req.url, authorization: req.headers.authorization, body });
      answer(req, res);
    });
  });
  servers.push(server);
  return { url: server.url, seen };
}

const client = (baseUrl: string, signal = new AbortController().signal) =>
  createPlatformApiClient({ baseUrl, token: 'delegated-token', signal, timeoutMs: 2_000 });

const toolError = (promise: Promise<unknown>): Promise<ToolError> => rejectionOf(promise, ToolError);

describe('the platform API client of a tool', () => {
  it('sends the delegated token as bearer, JSON in and out, the query encoded', async () => {
    const api = await serve((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}'));
    const answer = await client(api.url).request('POST', '/v2/webhooks', {
      query: { companyId: 1, q: 'a&b=c' },
      body: { name: 'x' },
      headers: { authversion: 'V0.0.1' },
    });
    expect(answer).toEqual({ ok: true });
    expect(api.seen).toEqual([{ method: 'POST', url: '/v2/webhooks?companyId=1&q=a%26b%3Dc', authorization: 'Bearer delegated-token', body: '{"name":"x"}' }]);
  });

  it('reads a token given as a function at each request: a client made early sends the token the call holds now', async () => {
    const api = await serve((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{}'));
    let token = 'token-at-start';
    const renewable = createPlatformApiClient({ baseUrl: api.url, token: () => token, signal: new AbortController().signal, timeoutMs: 2_000 });
    await renewable.get('/v1/a');
    token = 'token-renewed';
    await renewable.get('/v1/b');
    expect(api.seen.map((request) => request.authorization)).toEqual(['Bearer token-at-start', 'Bearer token-renewed']);
  });

  it('reads a page and the path of the next from its Link header, only when it stays under the base', async () => {
    const links = [
      '</api/v2/list?cursor=abc&outcome=failed>; rel="next"',
      '<https://evil.example/api/v2/list?cursor=x>; rel="next"',
      '</elsewhere/list?cursor=y>; rel="next"',
      '</api/v2/list?cursor=z>; rel="prev"',
    ];
    let index = 0;
    const api = await serve((_req, res) => res.writeHead(200, { 'content-type': 'application/json', link: links[index++] ?? '' }).end('[1]'));
    const paged = client(`${api.url}/api`);
    expect(await paged.getPage('/v2/list', { query: { outcome: 'failed' } })).toEqual({ body: [1], next: '/v2/list?cursor=abc&outcome=failed' });
    for (let i = 1; i < links.length; i++) expect((await paged.getPage('/v2/list')).next).toBeUndefined();
    expect(api.seen[0]?.url).toBe('/api/v2/list?outcome=failed');
  });

  it('will not let a tool override the bearer with a header of its own', async () => {
    const api = await serve((_req, res) => res.writeHead(204).end());
    await client(api.url).get('/api/me', { headers: { authorization: 'Bearer person-token' } });
    await client(api.url).get('/api/me', { headers: { Authorization: 'Bearer person-token' } });
    expect(api.seen.map((seen) => seen.authorization)).toEqual(['Bearer delegated-token', 'Bearer delegated-token']);
  });

  it.each([
    ['an absolute URL', 'https://evil.example/steal'],
    ['a scheme-relative URL', '//evil.example/steal'],
    ['a path without its leading slash', 'evil.example/steal'],
    ['a backslash', '/\\evil.example'],
    ['a control character', '/api/me\u0000'],
    ['a space', '/api/me x'],
    ['a fragment', '/api/me#x'],
  ])('refuses %s and sends nothing', async (_what, path) => {
    const api = await serve((_req, res) => res.end());
    await expect(client(api.url).get(path)).rejects.toThrow(TypeError);
    expect(api.seen).toEqual([]);
  });

  it('keeps every request under a base that has a path', () => {
    expect(addressWithin('https://platform.example/api', '/me').href).toBe('https://platform.example/api/me');
    expect(() => addressWithin('https://platform.example/api', '/../admin')).toThrow(/leaves https:\/\/platform.example\/api\//);
    expect(() => addressWithin('https://platform.example/api', '/%2e%2e/admin')).toThrow(TypeError);
  });

  it.each(unsafeCharacterCases)('refuses a path holding %s (the text-safety classes, and whitespace)', (_, character) => {
    expect(() => addressWithin('https://platform.example/api', `/devices/a${character}b`)).toThrow(TypeError);
  });

  it.each(unsafeCharacterCases)("passes on no %s of an error answer's message", async (_, character) => {
    const api = await serve((_req, res) =>
      res.writeHead(409, { 'content-type': 'application/json' }).end(JSON.stringify({ message: `taken${character}here` })),
    );
    const error = await toolError(client(api.url).get('/v2/webhooks'));
    expect(error.message).toMatch(/: taken[ \ufffd]?here$/);
  });

  it('answers an error status as a ToolError with the status and the API message', async () => {
    const api = await serve((_req, res) =>
      res.writeHead(409, { 'content-type': 'application/json' }).end('{"error":{"code":"CONFLICT","message":"device 7 is already linked","field":"deviceId"}}'),
    );
    const error = await toolError(client(api.url).request('POST', '/v2/webhooks/w/devices/7'));
    expect(error.code).toBe('CONFLICT');
    expect(error.message).toBe('the platform API answered 409 to POST /v2/webhooks/w/devices/7: device 7 is already linked');
    expect(error.details).toEqual({ status: 409, field: 'deviceId' });
  });

  it('keeps the code a 4xx answer names (the REST API’s own), and falls back to one by status when it names none', async () => {
    const answers = [
      [400, '{"error":{"code":"VALIDATION_FAILED","message":"name: is required","field":"name"}}'],
      [409, '{"error":{"code":"LIMIT_REACHED","message":"company 1 already has 100 webhook configurations"}}'],
      [400, '{"error":"invalid_request","error_description":"no"}'],
      [409, '{"error":{"code":"not a code <script>","message":"x"}}'],
    ] as const;
    let index = 0;
    const api = await serve((_req, res) => {
      const [status, body] = answers[index++] ?? [500, ''];
      res.writeHead(status, { 'content-type': 'application/json' }).end(body);
    });
    const codes = [];
    for (let i = 0; i < answers.length; i += 1) codes.push((await toolError(client(api.url).request('POST', '/v2/webhooks'))).code);
    expect(codes).toEqual(['VALIDATION_FAILED', 'LIMIT_REACHED', 'INVALID_REQUEST', 'CONFLICT']);
  });

  it('answers a 5xx with a body that is not JSON as UNAVAILABLE, without the body', async () => {
    const api = await serve((_req, res) => res.writeHead(502, { 'content-type': 'text/html' }).end('<html>bad gateway</html>'));
    const error = await toolError(client(api.url).get('/api/companies'));
    expect(error.code).toBe('UNAVAILABLE');
    expect(error.message).toBe('the platform API answered 502 to GET /api/companies.');
  });

  it('does not follow a redirect, so the bearer never reaches its target', async () => {
    const evil = await serve((_req, res) => res.end('{}'));
    const api = await serve((_req, res) => res.writeHead(302, { location: `${evil.url}/steal` }).end());
    const error = await toolError(client(api.url).get('/api/me'));
    expect(error.code).toBe('UNEXPECTED_REDIRECT');
    expect(evil.seen).toEqual([]);
  });

  it('strips control characters from the message it passes on', async () => {
    const api = await serve((_req, res) =>
      res.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify({ message: 'bad\r\ninjected\u0000line' })),
    );
    expect((await toolError(client(api.url).get('/x'))).message).toBe('the platform API answered 400 to GET /x: bad injected line');
  });

  it('answers an API that cannot be reached as UNAVAILABLE', async () => {
    const error = await toolError(client('http://127.0.0.1:9').get('/api/me'));
    expect(error.code).toBe('UNAVAILABLE');
    expect(error.message).toBe('the platform API could not be reached; try again shortly.');
  });

  it('ends the request with the call: an aborted call rejects with its reason, not a tool error', async () => {
    const api = await serve(() => undefined);
    const controller = new AbortController();
    const pending = client(api.url, controller.signal).get('/slow');
    const reason = new Error('deadline');
    // Aborted once the API holds the request, unanswered.
    await until(() => api.seen.length === 1, 'the API received the request');
    controller.abort(reason);
    await expect(pending).rejects.toBe(reason);
  });
});
