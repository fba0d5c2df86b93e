// The authorization-code flow with PKCE as an MCP client runs it: dynamic registration, the login form, a JWT for the MCP server.
import { startedForTests } from '@platform/tool-sdk/testing';
import { decodeJwt } from 'jose';
import * as oauth from 'openid-client';
import { describe, expect, it } from 'vitest';
import { signIn as signInAs } from './headless-sign-in.ts';
import { startPlatform } from './harness.ts';

const running = startedForTests(() => startPlatform());

const redirectUri = 'http://127.0.0.1:45678/callback';
const mcpResource = 'http://127.0.0.1:3000/mcp';

const signIn = (url: string, password: string) => signInAs(url, { username: 'oscar', password });

async function registerMcpClient(): Promise<oauth.Configuration> {
  // What MCP clients (the MCP Inspector, mcp-remote) send: a public client with a loopback
  // redirect, asking for refresh tokens too.
  return oauth.dynamicClientRegistration(
    new URL(running().issuer),
    {
      client_name: 'Test MCP client',
      redirect_uris: [redirectUri],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      scope: 'api',
    },
    oauth.None(),
    // eslint-disable-next-line @typescript-eslint/no-deprecated -- loopback test server
    { execute: [oauth.allowInsecureRequests] },
  );
}

/** An authorization request of `client` with the S256 challenge of `verifier` (a fresh one unless given). */
async function pkceAuthorizationUrl(client: oauth.Configuration, extra: Record<string, string> = {}, verifier = oauth.randomPKCECodeVerifier()): Promise<URL> {
  return oauth.buildAuthorizationUrl(client, {
    redirect_uri: redirectUri,
    scope: 'api',
    code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    ...extra,
  });
}

describe('authorization code with PKCE for a dynamically registered MCP client', () => {
  it('takes a request without scope as one for api, the default (OAuth 2.1), rather than refuse it', async () => {
    const client = await registerMcpClient();
    const verifier = oauth.randomPKCECodeVerifier();
    const url = await pkceAuthorizationUrl(client, {}, verifier);
    url.searchParams.delete('scope');
    const outcome = await signIn(url.href, 'oscar-dev-password');
    if (outcome.kind !== 'redirected') throw new Error(`sign-in refused: ${JSON.stringify(outcome)}`);
    expect(outcome.callback.searchParams.get('error')).toBeNull();
    const tokens = await oauth.authorizationCodeGrant(client, outcome.callback, { pkceCodeVerifier: verifier });
    expect(decodeJwt(tokens.access_token)).toMatchObject({ sub: 'u-oscar', scope: 'api', aud: running().issuer });
  });

  it('registers, signs the person in through the login form and issues a JWT for the MCP server, with no refresh token', async () => {
    const client = await registerMcpClient();
    expect(client.clientMetadata().client_secret).toBeUndefined();

    const verifier = oauth.randomPKCECodeVerifier();
    const state = oauth.randomState();
    const url = await pkceAuthorizationUrl(client, { state, resource: mcpResource }, verifier);
    const outcome = await signIn(url.href, 'oscar-dev-password');
    if (outcome.kind !== 'redirected') throw new Error(`sign-in refused: ${JSON.stringify(outcome)}`);
    const { callback } = outcome;
    const tokens = await oauth.authorizationCodeGrant(client, callback, { pkceCodeVerifier: verifier, expectedState: state });

    expect(tokens.refresh_token).toBeUndefined();
    const claims = decodeJwt(tokens.access_token);
    expect(claims).toMatchObject({ sub: 'u-oscar', aud: mcpResource, scope: 'api', iss: running().issuer, client_id: client.clientMetadata().client_id });
    expect(claims.act).toBeUndefined();
    // The person's token is good at the platform API's caller check.
    const me = await fetch(`${running().issuer}/api/me`, { headers: { authorization: `Bearer ${tokens.access_token}` } });
    expect(me.status).toBe(200);
  });

  it('requires PKCE', async () => {
    const client = await registerMcpClient();
    const url = oauth.buildAuthorizationUrl(client, { redirect_uri: redirectUri, scope: 'api', state: 's' });
    const response = await fetch(url, { redirect: 'manual' });
    const location = new URL(response.headers.get('location') ?? '');
    expect(location.searchParams.get('error')).toBe('invalid_request');
    expect(location.searchParams.get('error_description')).toContain('PKCE');
  });

  it('refuses a wrong password with the form again and a 401', async () => {
    const client = await registerMcpClient();
    const url = await pkceAuthorizationUrl(client);
    expect(await signIn(url.href, 'wrong-password')).toEqual({ kind: 'refused', status: 401 });
  });

  it('refuses a resource the platform does not serve', async () => {
    const client = await registerMcpClient();
    const url = await pkceAuthorizationUrl(client, { resource: 'https://elsewhere.example/api' });
    const response = await fetch(url, { redirect: 'manual' });
    expect(new URL(response.headers.get('location') ?? '').searchParams.get('error')).toBe('invalid_target');
  });

  it('answers a stale or unknown sign-in link with a page for the person, never a stack trace', async () => {
    const response = await fetch(`${running().issuer}/interaction/not-a-real-interaction`);
    expect(response.status).toBe(400);
    const page = await response.text();
    expect(page).toContain('start signing in again');
    expect(page).not.toMatch(/SessionNotFound|node_modules|\.ts:\d+|at /);
  });

  it('publishes discovery at both well-known paths, with CORS for browser clients', async () => {
    for (const path of ['/.well-known/openid-configuration', '/.well-known/oauth-authorization-server']) {
      const response = await fetch(`${running().issuer}${path}`, { headers: { origin: 'http://localhost:6274' } });
      expect(response.status).toBe(200);
      expect(['*', 'http://localhost:6274']).toContain(response.headers.get('access-control-allow-origin'));
      const metadata = (await response.json()) as Record<string, unknown>;
      expect(metadata).toMatchObject({
        issuer: running().issuer,
        code_challenge_methods_supported: ['S256'],
        registration_endpoint: `${running().issuer}/reg`,
      });
      expect(metadata.grant_types_supported).toEqual(
        expect.arrayContaining(['authorization_code', 'client_credentials', 'urn:ietf:params:oauth:grant-type:token-exchange']),
      );
    }
    const preflight = await fetch(`${running().issuer}/reg`, {
      method: 'OPTIONS',
      headers: { origin: 'http://localhost:6274', 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe('http://localhost:6274');
  });
});
