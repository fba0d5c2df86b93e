// Dynamic client registration cannot be flooded shut: an attacker's 1,100 registrations from 55
// loopback addresses (what once filled the store for good) leave a client that signed in before
// able to sign in again, and a new client able to register, also after a restart. The loopback
// range is one source for the per-minute limit, and a full store drops the clients that never
// signed anyone in before any that did.
import { request } from 'node:http';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { manualClock } from '@platform/tool-sdk/testing';
import * as oauth from 'openid-client';
import { afterEach, describe, expect, it } from 'vitest';
import { signIn } from './headless-sign-in.ts';
import { startPlatform, type RunningPlatform } from './harness.ts';
import { pkceAuthorization } from './pkce-authorization.ts';

const redirectUri = 'http://127.0.0.1:45681/callback';
const metadata = (name: string) => ({
  client_name: name,
  redirect_uris: [redirectUri],
  grant_types: ['authorization_code'],
  response_types: ['code'],
  token_endpoint_auth_method: 'none',
});

/** POST /reg from `localAddress` (any address of 127.0.0.0/8 is this machine's): the status and the client id, if any. */
function registerFrom(issuer: string, localAddress: string, name: string): Promise<{ status: number; clientId?: string }> {
  const body = JSON.stringify(metadata(name));
  return new Promise((resolve, reject) => {
    const sent = request(
      `${issuer}/reg`,
      { method: 'POST', localAddress, agent: false, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => {
          const answer = JSON.parse(Buffer.concat(chunks).toString() || '{}') as { client_id?: string };
          resolve({ status: response.statusCode ?? 0, ...(answer.client_id !== undefined && { clientId: answer.client_id }) });
        });
      },
    );
    sent.on('error', reject);
    sent.end(body);
  });
}

/** The attacker: 55 loopback addresses registering `each` clients apiece (1,100 by default), all at once. The statuses seen, counted. */
async function flood(issuer: string, each = 20): Promise<Record<number, number>> {
  const addresses = Array.from({ length: 55 }, (_, index) => `127.${1 + (index % 5)}.${index}.${1 + index}`);
  const statuses = await Promise.all(
    addresses.map(async (address) => {
      const seen: number[] = [];
      for (let index = 0; index < each; index += 1) seen.push((await registerFrom(issuer, address, `flood ${address} ${index}`)).status);
      return seen;
    }),
  );
  const counted: Record<number, number> = {};
  for (const status of statuses.flat()) counted[status] = (counted[status] ?? 0) + 1;
  return counted;
}

async function register(issuer: string, name: string): Promise<string> {
  const { status, clientId } = await registerFrom(issuer, '127.0.0.1', name);
  if (status !== 201 || clientId === undefined) throw new Error(`registration answered ${status}`);
  return clientId;
}

/** oscar's whole sign-in through `clientId`, to the access token. */
async function signsIn(issuer: string, clientId: string): Promise<boolean> {
  const { client, url, verifier } = await pkceAuthorization(issuer, clientId, redirectUri);
  const outcome = await signIn(url.href, { username: 'oscar', password: 'oscar-dev-password' }).catch(() => undefined);
  if (outcome?.kind !== 'redirected' || outcome.callback.searchParams.get('code') === null) return false;
  const tokens = await oauth.authorizationCodeGrant(client, outcome.callback, { pkceCodeVerifier: verifier });
  return typeof tokens.access_token === 'string';
}

const freshFile = () => join(mkdtempSync(join(tmpdir(), 'platform-flood-')), 'clients.json');

const running: RunningPlatform[] = [];
async function platformOn(file: string, clock: ReturnType<typeof manualClock>, env: Record<string, string> = {}): Promise<RunningPlatform> {
  const platform = await startPlatform({ env: { PLATFORM_CLIENTS_FILE: file, ...env }, clock });
  running.push(platform);
  return platform;
}

afterEach(async () => {
  await Promise.all(running.splice(0).map((platform) => platform.close()));
});

describe('a flood of registrations from many loopback addresses', () => {
  it('with the default limits: counts loopback as one source, and leaves room for the next client, also after a restart', { timeout: 60_000 }, async () => {
    const file = freshFile();
    const clock = manualClock(Date.now());
    const before = await platformOn(file, clock);
    const known = await register(before.issuer, 'Known agent');
    expect(await signsIn(before.issuer, known)).toBe(true);

    const statuses = await flood(before.issuer);
    // 20 a minute from loopback as a whole (the known agent's registration took one), whatever the address.
    expect(statuses).toEqual({ 201: 19, 429: 1081 });
    expect(await signsIn(before.issuer, known)).toBe(true);
    clock.advance(60_000);
    const next = await register(before.issuer, 'Next agent');
    expect(await signsIn(before.issuer, next)).toBe(true);

    await before.close();
    const after = await platformOn(file, clock);
    expect(await signsIn(after.issuer, known)).toBe(true);
    expect(await signsIn(after.issuer, await register(after.issuer, 'After the restart'))).toBe(true);
  });

  it('past the rate, into a full store: the flood replaces its own clients, never one that signed in, also after a restart', { timeout: 60_000 }, async () => {
    const file = freshFile();
    const clock = manualClock(Date.now());
    const env = { PLATFORM_MAX_CLIENTS: '50', PLATFORM_REGISTRATIONS_PER_MINUTE: '100000' };
    const before = await platformOn(file, clock, env);
    const known = await register(before.issuer, 'Known agent');
    expect(await signsIn(before.issuer, known)).toBe(true);

    // Every registration is taken: each in place of a client that never signed anyone in.
    expect(await flood(before.issuer)).toEqual({ 201: 1100 });
    expect(await signsIn(before.issuer, known)).toBe(true);
    const next = await register(before.issuer, 'Next agent');
    expect(await signsIn(before.issuer, next)).toBe(true);

    // The store is judged after a restart as before it: the flood's clients are still the ones to go.
    await before.close();
    const after = await platformOn(file, clock, env);
    expect(await flood(after.issuer, 2)).toEqual({ 201: 110 });
    expect(await signsIn(after.issuer, known)).toBe(true);
    expect(await signsIn(after.issuer, next)).toBe(true);
    expect(await signsIn(after.issuer, await register(after.issuer, 'After the restart'))).toBe(true);
  });
});
