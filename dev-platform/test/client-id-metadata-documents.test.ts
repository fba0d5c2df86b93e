// Client ID Metadata Documents (MCP authorization, 2026-07-28): a client whose client_id is the
// https URL of its metadata document signs in with no registration. Real MCP clients do it against
// a small MCP server the platform protects: the v2 MCP SDK client, and mcp-remote with
// --client-metadata-url; the documents are served by the test over https (its own CA) and, on
// loopback, over http. A document the platform cannot take is refused with a page (or, at the
// token endpoint, an error) naming what is wrong, never a server error; in production, loopback
// and http client ids are refused.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Client, StreamableHTTPClientTransport, UnauthorizedError } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { closedPort, startedForTests } from '@platform/tool-sdk/testing';
import { decodeJwt } from 'jose';
import * as oauth from 'openid-client';
import { describe, expect, it } from 'vitest';
import { clientDocument, startClientDocumentServer, type ClientDocumentServer, type ServedDocument } from './client-document-server.ts';
import { browser, signIn } from './headless-sign-in.ts';
import { MemoryOAuthProvider } from './memory-oauth-provider.ts';
import { startPlatform, type RunningPlatform } from './harness.ts';
import { startProtectedMcpServer, type ProtectedMcpServer } from './protected-mcp-server.ts';
import { pkceAuthorization } from './pkce-authorization.ts';

const oscar = { username: 'oscar', password: 'oscar-dev-password' };

interface World {
  readonly documents: ClientDocumentServer;
  readonly mcp: ProtectedMcpServer;
  readonly platform: RunningPlatform;
  close(): Promise<void>;
}

/** The documents' server, the MCP server and a platform that trusts the documents' CA and issues tokens for the MCP server. */
async function startWorld(env: Record<string, string> = {}): Promise<World> {
  const documents = await startClientDocumentServer();
  let issuer = '';
  const mcp = await startProtectedMcpServer(() => issuer);
  const platform = await startPlatform({ env: { PLATFORM_EXTRA_RESOURCES: mcp.mcpUrl, ...env }, clientDocumentCa: documents.ca });
  issuer = platform.issuer;
  return {
    documents,
    mcp,
    platform,
    async close() {
      await platform.close();
      await Promise.all([mcp.close(), documents.close()]);
    },
  };
}

const newClient = () => new Client({ name: 'cimd-test', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });

/** An authorization request of `clientId` for `redirectUri`: the status of /auth's answer, and its page when it shows one. */
async function authorizationAnswer(issuer: string, clientId: string, redirectUri: string): Promise<{ status: number; page: string; headers: Headers }> {
  const url = new URL('/auth', issuer);
  const challenge = await oauth.calculatePKCECodeChallenge(oauth.randomPKCECodeVerifier());
  url.search = new URLSearchParams({
    response_type: 'code',
    client_id: clientId,
    redirect_uri: redirectUri,
    scope: 'api',
    code_challenge: challenge,
    code_challenge_method: 'S256',
  }).toString();
  const response = await fetch(url, { redirect: 'manual' });
  return { status: response.status, page: await response.text(), headers: response.headers };
}

/** A page's text as read: HTML entities decoded. */
const readable = (page: string) => page.replace(/&#(\d+);/g, (_, code: string) => String.fromCharCode(Number(code)));

describe('a client identified by its metadata document', () => {
  const world = startedForTests(() => startWorld());

  it('is announced in the metadata, beside dynamic registration, which stays', async () => {
    for (const path of ['/.well-known/oauth-authorization-server', '/.well-known/openid-configuration']) {
      const metadata = (await (await fetch(`${world().platform.issuer}${path}`)).json()) as Record<string, unknown>;
      expect(metadata).toMatchObject({ client_id_metadata_document_supported: true, registration_endpoint: `${world().platform.issuer}/reg` });
      expect(metadata.token_endpoint_auth_methods_supported).toEqual(expect.arrayContaining(['none', 'private_key_jwt']));
    }
  });

  it('signs the v2 MCP SDK client in by its document: no registration, named by the document on the consent page, and calls a tool', async () => {
    const { documents, mcp, platform } = world();
    const clientMetadataUrl = `${documents.httpsOrigin}/sdk-client.json`;
    const provider = new MemoryOAuthProvider({ redirectUrl: 'http://127.0.0.1:45682/callback', clientName: 'CIMD SDK client', clientMetadataUrl });
    documents.serve('/sdk-client.json', { body: clientDocument(clientMetadataUrl, [provider.redirectUrl], { client_name: 'Document <SDK> client' }) });
    const seen: string[] = [];
    const transport = () =>
      new StreamableHTTPClientTransport(new URL(mcp.mcpUrl), {
        authProvider: provider,
        fetch: async (input, init) => {
          const response = await fetch(input, init);
          seen.push(`${init?.method ?? 'GET'} ${new URL(String(input)).pathname} ${response.status}`);
          return response;
        },
      });
    const first = transport();
    await expect(newClient().connect(first)).rejects.toBeInstanceOf(UnauthorizedError);
    expect(seen).toContain('GET /.well-known/oauth-authorization-server 200');
    expect(seen.filter((line) => line.startsWith('POST /reg'))).toEqual([]);
    const authorizationUrl = provider.authorizationUrl;
    if (!authorizationUrl) throw new Error('the client was not sent to sign in');
    expect(authorizationUrl.searchParams.get('client_id')).toBe(provider.clientMetadataUrl);

    // The person is told who asks: the name the document gives, the document's address, where the redirect goes.
    const signedIn = browser();
    const asked = await signIn(authorizationUrl.href, oscar, { consent: 'stop', visit: signedIn });
    const page = asked.kind === 'consent' ? readable(asked.page) : '';
    expect(page).toContain('Allow <strong>Document <SDK> client</strong>?');
    expect(page).toContain(`as its document at <strong>${new URL(documents.httpsOrigin).host}</strong>`);
    expect(page).toContain(provider.clientMetadataUrl);
    expect(page).toContain('sent back to <strong>127.0.0.1:45682</strong>');
    expect(page).toContain('is a program on this computer');

    const outcome = await signIn(authorizationUrl.href, oscar, { visit: signedIn });
    if (outcome.kind !== 'redirected') throw new Error(`the sign-in was refused (${JSON.stringify(outcome)})`);
    await first.finishAuth(provider.callbackParams(outcome.callback));
    const token = provider.saved?.access_token ?? '';
    expect(decodeJwt(token)).toMatchObject({ sub: 'u-oscar', aud: mcp.mcpUrl, iss: platform.issuer, client_id: provider.clientMetadataUrl });

    const client = newClient();
    await client.connect(transport());
    try {
      const whoami = await client.callTool({ name: 'whoami', arguments: {} });
      expect(whoami.content).toEqual([{ type: 'text', text: JSON.stringify({ userId: 'u-oscar', clientId: provider.clientMetadataUrl }) }]);
    } finally {
      await client.close();
    }
    // Fetched once for the whole sign-in (authorization, consent, token), then kept.
    expect(documents.fetches('/sdk-client.json')).toBe(1);
    expect(platform.logs.join('')).not.toContain(token);
  });

  it('signs mcp-remote in with --client-metadata-url through the BROWSER it opens, and proxies the tool', async () => {
    const { documents, mcp } = world();
    const port = await closedPort();
    const documentUrl = `${documents.httpsOrigin}/mcp-remote.json`;
    documents.serve('/mcp-remote.json', { body: clientDocument(documentUrl, [`http://localhost:${port}/oauth/callback`], { client_name: 'mcp-remote' }) });
    const home = mkdtempSync(join(tmpdir(), 'mcp-remote-cimd-'));
    const report = join(home, 'browser-report.jsonl');
    const browserScript = join(home, 'browser');
    // xdg-open runs `$BROWSER "$url"` word-split, so it gets a script of its own rather than a command line.
    writeFileSync(browserScript, `#!/bin/sh\nexec '${process.execPath}' '${join(import.meta.dirname, 'headless-browser.ts')}' "$1"\n`, { mode: 0o755 });
    const proxy = join(dirname(createRequire(import.meta.url).resolve('mcp-remote/package.json')), 'dist/proxy.js');
    const stderr: string[] = [];
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [proxy, mcp.mcpUrl, String(port), '--client-metadata-url', documentUrl],
      // Only what it needs: no DISPLAY, desktop session or D-Bus address that would send xdg-open to a real browser.
      env: {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        HOME: home,
        MCP_REMOTE_CONFIG_DIR: join(home, 'config'),
        BROWSER: browserScript,
        HEADLESS_BROWSER_USERNAME: oscar.username,
        HEADLESS_BROWSER_PASSWORD: oscar.password,
        HEADLESS_BROWSER_REPORT: report,
      },
      stderr: 'pipe',
    });
    transport.stderr?.on('data', (chunk: Buffer) => stderr.push(chunk.toString()));
    const client = new Client({ name: 'agent-desktop', version: '1.0.0' });
    try {
      await client.connect(transport, { timeout: 15_000 });
      const whoami = await client.callTool({ name: 'whoami', arguments: {} });
      expect(whoami.content).toEqual([{ type: 'text', text: JSON.stringify({ userId: 'u-oscar', clientId: documentUrl }) }]);
    } catch (error) {
      const browserSaid = (() => {
        try {
          return readFileSync(report, 'utf8');
        } catch {
          return '(nothing)';
        }
      })();
      throw new Error(`through mcp-remote: ${String(error)}; browser: ${browserSaid}; stderr:\n${stderr.join('')}`, { cause: error });
    } finally {
      await client.close();
    }
    expect(
      readFileSync(report, 'utf8')
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as unknown),
    ).toEqual([{ kind: 'redirected', callbackStatus: 200, consentShown: true }]);
    expect(stderr.join('')).toContain(`Using client metadata document: ${documentUrl}`);
  }, 40_000);

  it('takes a loopback http client id in development, as a client served from this machine', async () => {
    const { documents, platform } = world();
    const clientId = `${documents.httpOrigin}/local-client.json`;
    const redirectUri = 'http://127.0.0.1:45683/callback';
    documents.serve('/local-client.json', { body: clientDocument(clientId, [redirectUri]) });
    const { client, url, verifier } = await pkceAuthorization(platform.issuer, clientId, redirectUri);
    const outcome = await signIn(url.href, oscar);
    if (outcome.kind !== 'redirected') throw new Error(`refused: ${JSON.stringify(outcome)}`);
    const tokens = await oauth.authorizationCodeGrant(client, outcome.callback, { pkceCodeVerifier: verifier });
    expect(decodeJwt(tokens.access_token)).toMatchObject({ sub: 'u-oscar', client_id: clientId });
  });

  const redirectUri = 'http://127.0.0.1:45684/callback';
  it.each<[string, string, (url: string) => ServedDocument, RegExp]>([
    [
      'names another client_id',
      '/other-id.json',
      () => ({ body: clientDocument('https://elsewhere.example/client.json', [redirectUri]) }),
      /client_id: must be the document's own URL, exactly https:\/\/127\.0\.0\.1:\d+\/other-id\.json/,
    ],
    ['has no redirect_uris', '/no-redirects.json', (url) => ({ body: clientDocument(url, []) }), /redirect_uris: is required/],
    [
      'lists a redirect URI to another host over http',
      '/evil-redirect.json',
      (url) => ({ body: clientDocument(url, [redirectUri, 'http://evil.example/cb']) }),
      /redirect_uris\[1\]: must use https/,
    ],
    ['has no client_name', '/no-name.json', (url) => ({ body: clientDocument(url, [redirectUri], { client_name: undefined }) }), /client_name: is required/],
    [
      'asks for a shared secret',
      '/secret.json',
      (url) => ({ body: clientDocument(url, [redirectUri], { token_endpoint_auth_method: 'client_secret_basic' }) }),
      /token_endpoint_auth_method: must not be client_secret_basic/,
    ],
    [
      'carries a client_secret',
      '/with-secret.json',
      (url) => ({ body: clientDocument(url, [redirectUri], { client_secret: 'x' }) }),
      /client_secret: must not be in a document/,
    ],
    ['is answered 404', '/missing.json', () => ({ body: 'gone', status: 404 }), /the document was answered 404, not 200/],
    [
      'is a redirect',
      '/moved.json',
      () => ({ body: '', status: 302, headers: { location: '/sdk-client.json' } }),
      /answered 302, not 200: redirects are not followed/,
    ],
    ['is HTML', '/page.json', () => ({ body: '<html></html>', headers: { 'content-type': 'text/html' } }), /was answered as text\/html, not application\/json/],
    ['is not JSON', '/broken.json', () => ({ body: '{"client_id":' }), /the document is not valid JSON/],
    [
      'is larger than 5 KiB',
      '/large.json',
      (url) => ({ body: clientDocument(url, [redirectUri], { padding: 'x'.repeat(6000) }) }),
      /the document is larger than 5120 bytes/,
    ],
  ])('refuses a document that %s, naming what is wrong (400, never a server error)', async (_case, path, document, problem) => {
    const { documents, platform } = world();
    const url = `${documents.httpsOrigin}${path}`;
    documents.serve(path, document(url));
    const answer = await authorizationAnswer(platform.issuer, url, redirectUri);
    expect(answer.status).toBe(400);
    expect(readable(answer.page)).toMatch(problem);
    expect(answer.page).toContain('invalid_client');
    expect(answer.headers.get('x-frame-options')).toBe('DENY');
  });

  it.each([
    ['a private address', 'https://10.1.2.3/client.json', /its host is 10\.1\.2\.3, a private address/],
    ['the cloud metadata address', 'https://169.254.169.254/latest/client.json', /its host is 169\.254\.169\.254, a cloud-metadata address/],
    ['no path', 'https://client.example', /client_id must have a path/],
    ['a fragment', 'https://client.example/c.json#x', /client_id must not have a fragment/],
    ['user information', 'https://user@client.example/c.json', /client_id must not contain user information/],
    ['http to another host', 'http://client.example/c.json', /client_id must be an https URL/],
  ])('refuses a client id URL with %s before fetching anything', async (_case, clientId, problem) => {
    const answer = await authorizationAnswer(world().platform.issuer, clientId, redirectUri);
    expect(answer.status).toBe(400);
    expect(readable(answer.page)).toMatch(problem);
  });

  it('refuses a redirect URI the document does not list', async () => {
    const { documents, platform } = world();
    const url = `${documents.httpsOrigin}/listed.json`;
    documents.serve('/listed.json', { body: clientDocument(url, [redirectUri]) });
    const answer = await authorizationAnswer(platform.issuer, url, 'http://127.0.0.1:45685/other');
    expect(answer.status).toBe(400);
    expect(answer.page).toContain('redirect_uri did not match');
  });

  it('answers the token endpoint invalid_client (400), with what is wrong, for a document it cannot take', async () => {
    const { documents, platform } = world();
    const url = `${documents.httpsOrigin}/token-refused.json`;
    documents.serve('/token-refused.json', { body: clientDocument('https://elsewhere.example/c.json', [redirectUri]) });
    const response = await fetch(`${platform.issuer}/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code: 'x',
        redirect_uri: redirectUri,
        client_id: url,
        code_verifier: 'x'.repeat(43),
      }).toString(),
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({
      error: 'invalid_client',
      error_description: expect.stringContaining('client_id: must be the document') as unknown,
    });
  });
});

describe('a client identified by its metadata document, with NODE_ENV=production', () => {
  const world = startedForTests(() => startWorld({ NODE_ENV: 'production' }));
  const redirectUri = 'http://127.0.0.1:45686/callback';

  it('is refused on loopback: an http client id, and an https document on this machine', async () => {
    const { documents, platform } = world();
    const http = `${documents.httpOrigin}/local.json`;
    const https = `${documents.httpsOrigin}/local.json`;
    documents.serve('/local.json', { body: clientDocument(https, [redirectUri]) });

    const overHttp = await authorizationAnswer(platform.issuer, http, redirectUri);
    expect(overHttp.status).toBe(400);
    expect(readable(overHttp.page)).toContain('client_id must be an https URL (http is taken on loopback only, and not in production)');
    const onLoopback = await authorizationAnswer(platform.issuer, https, redirectUri);
    expect(onLoopback.status).toBe(400);
    expect(readable(onLoopback.page)).toContain('its host is 127.0.0.1, a loopback address');
    expect(documents.fetches('/local.json')).toBe(0);
  });
});
