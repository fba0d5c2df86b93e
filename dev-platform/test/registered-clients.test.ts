// Clients registered through dynamic client registration, across a restart of the platform: an MCP
// client that registered once (mcp-remote keeps its client id) signs in again after `npm start`
// restarts the stack, when PLATFORM_CLIENTS_FILE names where they are kept.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { decodeJwt } from 'jose';
import * as oauth from 'openid-client';
import { describe, expect, it } from 'vitest';
import { signIn } from './headless-sign-in.ts';
import { devSecrets } from './dev-env.ts';
import { startPlatform, type RunningPlatform } from './harness.ts';
import { sourceCondition } from '@platform/devtools/source-condition';
import { pkceAuthorization } from './pkce-authorization.ts';

const redirectUri = 'http://127.0.0.1:45679/callback';
// eslint-disable-next-line @typescript-eslint/no-deprecated -- loopback test servers
const insecure = { execute: [oauth.allowInsecureRequests] };

async function register(issuer: string): Promise<string> {
  const client = await oauth.dynamicClientRegistration(
    new URL(issuer),
    {
      client_name: 'mcp-remote',
      redirect_uris: [redirectUri],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    },
    oauth.None(),
    insecure,
  );
  return client.clientMetadata().client_id;
}

/** The whole sign-in of `clientId` at `platform`: the access token, or the page the person was left on. */
async function signInWith(platform: RunningPlatform, clientId: string): Promise<{ token?: string; status?: number; page?: string }> {
  const { client, url, verifier } = await pkceAuthorization(platform.issuer, clientId, redirectUri);
  const first = await fetch(url, { redirect: 'manual' });
  if (first.status !== 303 && first.status !== 302) return { status: first.status, page: await first.text() };
  const outcome = await signIn(url.href, { username: 'oscar', password: 'oscar-dev-password' });
  if (outcome.kind !== 'redirected') throw new Error(`sign-in refused: ${JSON.stringify(outcome)}`);
  const tokens = await oauth.authorizationCodeGrant(client, outcome.callback, { pkceCodeVerifier: verifier });
  return { token: tokens.access_token };
}

const freshFile = () => join(mkdtempSync(join(tmpdir(), 'platform-clients-')), 'clients.json');

describe('registered clients across a restart', () => {
  it('keeps a registered client in PLATFORM_CLIENTS_FILE, so that it signs in again after a restart', async () => {
    const file = freshFile();
    const before = await startPlatform({ env: { PLATFORM_CLIENTS_FILE: file } });
    const clientId = await register(before.issuer).finally(() => before.close());
    // Its registration is not for everyone to read: the file is this user's alone.
    expect(statSync(file).mode & 0o777).toBe(0o600);

    const after = await startPlatform({ env: { PLATFORM_CLIENTS_FILE: file } });
    try {
      const { token } = await signInWith(after, clientId);
      expect(decodeJwt(token ?? '')).toMatchObject({ sub: 'u-oscar', client_id: clientId });
    } finally {
      await after.close();
    }
  });

  it('forgets registered clients on a restart without PLATFORM_CLIENTS_FILE: the sign-in stops at a page that says what to do', async () => {
    const before = await startPlatform();
    const clientId = await register(before.issuer).finally(() => before.close());
    const after = await startPlatform();
    try {
      const { status, page } = await signInWith(after, clientId);
      expect(status).toBe(400);
      expect(page).toContain('invalid_client');
      // The data reset a person trips over: what mcp-remote keeps, and how to make it register again.
      expect(page).toContain('remove ~/.mcp-auth');
      expect(page).toContain('MCP_REMOTE_CONFIG_DIR');
    } finally {
      await after.close();
    }
  });

  it('refuses to start on a file it did not write, in one line naming the variable, and leaves the file as it was', () => {
    const file = freshFile();
    writeFileSync(file, '{"clients": "not a list"}');
    const run = spawnSync(process.execPath, [sourceCondition, resolve(import.meta.dirname, '../src/main.ts')], {
      env: { PATH: process.env.PATH ?? '', ...devSecrets, PLATFORM_PORT: '0', PLATFORM_AI_PORT: '0', PLATFORM_CLIENTS_FILE: file, LOG_LEVEL: 'silent' },
      encoding: 'utf8',
      timeout: 20_000,
    });
    expect(run.status).toBe(1);
    expect(run.stderr.trim().split('\n')).toEqual([
      `dev-platform cannot start: PLATFORM_CLIENTS_FILE: ${file} is not a clients file written by this platform (version undefined, expected 1); remove it to start with no registered clients`,
    ]);
    expect(readFileSync(file, 'utf8')).toBe('{"clients": "not a list"}');
  });
});
