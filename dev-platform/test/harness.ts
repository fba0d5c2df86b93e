// Starts a real dev platform on loopback ports chosen by the OS, for whole-process tests.
import { resolve } from 'node:path';
import { createLogger } from '@platform/shared';
import { captureLogs, listenOnFreePort } from '@platform/shared/testing';
import * as oauth from 'openid-client';
import { createDevPlatform, type DevPlatform } from '../src/dev-platform.ts';
import { loadSeedFile, parseSeed, type Seed } from '../src/seed.ts';
import { loadDevPlatformSettings } from '../src/settings.ts';
import { devSecrets } from './dev-env.ts';

export interface RunningPlatform {
  readonly issuer: string;
  readonly aiUrl: string;
  readonly platform: DevPlatform;
  /** Everything the platform logged, for secret scans. */
  readonly logs: string[];
  close(): Promise<void>;
}

export const defaultSeed = (): Seed => loadSeedFile(resolve(import.meta.dirname, '../seed.json'), devSecrets);

/**
 * The default seed plus `pat` (u-pat), owner of every company: a platform administrator, who holds
 * every right at every company and so may change the platform's roles and apps.
 */
export function seedWithPlatformAdministrator(): Seed {
  const seed = defaultSeed();
  seed.users.push({
    id: 'u-pat',
    username: 'pat',
    password: 'pat-dev-password',
    email: 'pat@platform.example',
    apiTokens: [],
    memberships: seed.companies.map((company) => ({ companyId: company.id, roles: [], isOwner: true })),
  });
  return seed;
}

export async function startPlatform(options: { env?: Record<string, string>; seed?: unknown } = {}): Promise<RunningPlatform> {
  const main = await listenOnFreePort();
  const ai = await listenOnFreePort();
  const settings = loadDevPlatformSettings({ PLATFORM_ISSUER: main.url, PLATFORM_AI_BASE_URL: ai.url, ...options.env });
  const seed = options.seed === undefined ? defaultSeed() : parseSeed(options.seed, devSecrets);
  const logs = captureLogs();
  const platform = await createDevPlatform({ settings, seed, logger: createLogger({ name: 'dev-platform', level: 'debug', destination: logs.destination }) });
  main.server.on('request', platform.app);
  ai.server.on('request', platform.aiApp);
  return {
    issuer: main.url,
    aiUrl: ai.url,
    platform,
    logs: logs.lines,
    async close() {
      await Promise.all([main.close(), ai.close()]);
    },
  };
}

/** openid-client's view of the platform for one confidential client. */
export async function clientFor(issuer: string, clientId: string, clientSecret: string): Promise<oauth.Configuration> {
  return oauth.discovery(new URL(issuer), clientId, undefined, oauth.ClientSecretBasic(clientSecret), {
    // eslint-disable-next-line @typescript-eslint/no-deprecated -- loopback test server
    execute: [oauth.allowInsecureRequests],
  });
}

/** A person's token by scripted login. */
export async function personToken(issuer: string, username: string, body: Record<string, unknown> = {}): Promise<string> {
  const response = await fetch(`${issuer}/dev/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username, ...body }),
  });
  if (!response.ok) throw new Error(`dev token for ${username}: ${response.status} ${await response.text()}`);
  return ((await response.json()) as { access_token: string }).access_token;
}

export async function appToken(issuer: string, clientId: string, clientSecret: string): Promise<string> {
  const config = await clientFor(issuer, clientId, clientSecret);
  return (await oauth.clientCredentialsGrant(config, { scope: 'api' })).access_token;
}

export const tokenExchange = 'urn:ietf:params:oauth:grant-type:token-exchange';
export const accessTokenType = 'urn:ietf:params:oauth:token-type:access_token';

/** A delegated token for `username` through the app `appClientId`, exchanged by the MCP gateway. */
export async function delegatedToken(
  issuer: string,
  username: string,
  appClientId = 'webhook-tools',
  appSecret: string = devSecrets.WEBHOOK_TOOLS_CLIENT_SECRET,
): Promise<string> {
  const gateway = await clientFor(issuer, 'mcp-gateway', devSecrets.MCP_GATEWAY_CLIENT_SECRET);
  const response = await oauth.genericGrantRequest(gateway, tokenExchange, {
    subject_token: await personToken(issuer, username),
    subject_token_type: accessTokenType,
    actor_token: await appToken(issuer, appClientId, appSecret),
    actor_token_type: accessTokenType,
  });
  return response.access_token;
}

export async function getJson(url: string, token: string, scheme = 'Bearer'): Promise<{ status: number; body: unknown }> {
  const response = await fetch(url, { headers: { authorization: `${scheme} ${token}` } });
  const text = await response.text();
  return { status: response.status, body: text ? (JSON.parse(text) as unknown) : undefined };
}

export async function sendJson(method: string, url: string, token: string, body: unknown): Promise<{ status: number; body: unknown }> {
  const response = await fetch(url, { method, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const text = await response.text();
  return { status: response.status, body: text ? (JSON.parse(text) as unknown) : undefined };
}

export { devSecrets } from './dev-env.ts';
