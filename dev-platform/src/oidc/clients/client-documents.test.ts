import type { IncomingMessage, ServerResponse } from 'node:http';
import { listen, manualClock, rejectionOf, type Listening } from '@platform/tool-sdk/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { ClientDocumentError } from './client-document-error.ts';
import { createClientDocuments, type ClientDocumentsOptions } from './client-documents.ts';

const redirectUri = 'http://127.0.0.1:45690/callback';
const open: { close(): Promise<void> }[] = [];

afterEach(async () => {
  await Promise.all(open.splice(0).map((part) => part.close()));
});

/** A loopback server answering with `answer`, counting requests. */
async function serving(answer: (req: IncomingMessage, res: ServerResponse) => void): Promise<{ readonly url: string; readonly requests: number }> {
  let requests = 0;
  const server: Listening = await listen((req, res) => {
    requests += 1;
    answer(req, res);
  });
  open.push(server);
  return {
    url: server.url,
    get requests() {
      return requests;
    },
  };
}

const documentFor = (clientId: string) => JSON.stringify({ client_id: clientId, client_name: 'Unit client', redirect_uris: [redirectUri] });

function documents(options: Partial<ClientDocumentsOptions> = {}) {
  const made = createClientDocuments({ allowLoopback: true, ...options });
  open.push(made);
  return made;
}

describe('createClientDocuments', () => {
  it('answers a client from its document, fetched once for concurrent look-ups', async () => {
    const server = await serving((req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' }).end(documentFor(`${server.url}${req.url ?? ''}`));
    });
    const clientId = `${server.url}/client.json`;
    const clients = documents();
    const found = await Promise.all([clients.resolve(clientId), clients.resolve(clientId), clients.resolve(clientId)]);
    expect(found[0]).toEqual({
      client_id: clientId,
      client_name: 'Unit client',
      redirect_uris: [redirectUri],
      grant_types: ['authorization_code'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    });
    expect(server.requests).toBe(1);
  });

  it.each([
    ['max-age', { 'cache-control': 'max-age=600' }, 600_000],
    ['max-age less its Age', { 'cache-control': 'public, max-age=600', age: '100' }, 500_000],
    ['Expires', { expires: new Date(Date.now() + 300_000).toUTCString() }, 300_000],
    ['a max-age past the longest bound', { 'cache-control': 'max-age=999999999' }, 86_400_000],
    ['no-store (the shortest bound)', { 'cache-control': 'no-store' }, 30_000],
    ['no-cache (the shortest bound)', { 'cache-control': 'no-cache, max-age=600' }, 30_000],
    ['nothing (the shortest bound)', {}, 30_000],
  ])('keeps a document as its caching headers say, within bounds: %s', async (_case, headers, keptMs) => {
    const server = await serving((req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', date: new Date().toUTCString(), ...headers }).end(documentFor(`${server.url}${req.url ?? ''}`));
    });
    const clock = manualClock(Date.now());
    const clients = documents({ clock });
    const clientId = `${server.url}/client.json`;
    await clients.resolve(clientId);
    // Expires is read against the response's Date, so a second or two of difference is allowed.
    clock.advance(keptMs - 2_000);
    await clients.resolve(clientId);
    expect(server.requests).toBe(1);
    clock.advance(2_001);
    await clients.resolve(clientId);
    expect(server.requests).toBe(2);
  });

  it('keeps no failure: a document fixed is taken on the next look-up', async () => {
    let fixed = false;
    const server = await serving((req, res) => {
      if (!fixed) res.writeHead(500).end();
      else res.writeHead(200, { 'content-type': 'application/json' }).end(documentFor(`${server.url}${req.url ?? ''}`));
    });
    const clients = documents();
    const clientId = `${server.url}/client.json`;
    expect(await rejectionOf(clients.resolve(clientId), ClientDocumentError)).toMatchObject({
      code: 'DOCUMENT_UNAVAILABLE',
      message: 'the document was answered 500, not 200',
    });
    fixed = true;
    expect(await clients.resolve(clientId)).toMatchObject({ client_id: clientId });
  });

  it('gives up on a document that does not arrive in time', async () => {
    const server = await serving(() => {
      // Never answers.
    });
    expect(await rejectionOf(documents({ timeoutMs: 200 }).resolve(`${server.url}/slow.json`), ClientDocumentError)).toMatchObject({
      code: 'DOCUMENT_UNAVAILABLE',
      message: 'the document did not arrive within 200 ms',
    });
  });

  it('stops reading a document past the size bound, even one sent without a length', async () => {
    const server = await serving((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write(`{"client_name":"${'x'.repeat(3_000)}`);
      res.write('x'.repeat(3_000));
      // And then it never ends.
    });
    expect(await rejectionOf(documents({ maxBytes: 5_120 }).resolve(`${server.url}/big.json`), ClientDocumentError)).toMatchObject({
      code: 'DOCUMENT_UNAVAILABLE',
      message: 'the document is larger than 5120 bytes',
    });
  });

  it('takes application/<something>+json as JSON', async () => {
    const server = await serving((req, res) => {
      res.writeHead(200, { 'content-type': 'application/oauth-client+json; charset=utf-8' }).end(documentFor(`${server.url}${req.url ?? ''}`));
    });
    expect(await documents().resolve(`${server.url}/typed.json`)).toMatchObject({ client_name: 'Unit client' });
  });

  it('refuses loopback when it is not allowed, by address and by name, and fetches nothing', async () => {
    const server = await serving((_req, res) => res.writeHead(200).end('{}'));
    const strict = documents({ allowLoopback: false });
    const https = server.url.replace('http:', 'https:');
    expect(await rejectionOf(strict.resolve(`${https}/c.json`), ClientDocumentError)).toMatchObject({
      code: 'DOCUMENT_UNAVAILABLE',
      message: expect.stringContaining('its host is 127.0.0.1, a loopback address') as unknown,
    });
    expect(await rejectionOf(strict.resolve(`https://localhost:${new URL(server.url).port}/c.json`), ClientDocumentError)).toMatchObject({
      code: 'DOCUMENT_UNAVAILABLE',
      message: 'the document is not fetched: the target host localhost did not resolve to a public address',
    });
    expect(await rejectionOf(strict.resolve(`${server.url}/c.json`), ClientDocumentError)).toMatchObject({ code: 'CLIENT_ID_REFUSED' });
    expect(server.requests).toBe(0);
  });

  it('refuses a client id that is no document URL without fetching', async () => {
    expect(await rejectionOf(documents().resolve('https://client.example/'), ClientDocumentError)).toMatchObject({
      code: 'CLIENT_ID_REFUSED',
      message: 'client_id must have a path (https://host/client.json): the document is the path, not the host',
    });
  });
});
