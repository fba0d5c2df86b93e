// Starts a real dev platform on loopback ports chosen by the OS, for whole-process tests.
import { request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import { resolve } from 'node:path';
import { createLogger, type Clock } from '@platform/tool-sdk';
import { captureLogs, listen, listenOnFreePort, type Listening } from '@platform/tool-sdk/testing';
import * as oauth from 'openid-client';
import { createDevPlatform, type DevPlatform } from '../src/dev-platform.ts';
import { loadSeedFile, parseSeed, type Seed } from '../src/world/seed.ts';
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

/** The default seed with these apps (by client id) marked as tool publishers too, as a rival publisher in the gateway's tests. */
export function seedWithToolPublishers(...clientIds: readonly string[]): Seed {
  const seed = defaultSeed();
  for (const clientId of clientIds) {
    const app = seed.apps.find((candidate) => candidate.clientId === clientId);
    if (!app) throw new Error(`the seed has no app ${clientId}`);
    app.toolPublisher = true;
  }
  return seed;
}

export interface StartPlatformOptions {
  readonly env?: Record<string, string>;
  readonly seed?: unknown;
  readonly clock?: Clock;
  /** A CA (PEM) the platform trusts for client ID metadata documents served over https by the test. */
  readonly clientDocumentCa?: string;
}

export async function startPlatform(options: StartPlatformOptions = {}): Promise<RunningPlatform> {
  const main = await listenOnFreePort();
  const ai = await listenOnFreePort();
  const settings = loadDevPlatformSettings({ PLATFORM_ISSUER: main.url, PLATFORM_AI_BASE_URL: ai.url, ...options.env });
  const seed = options.seed === undefined ? defaultSeed() : parseSeed(options.seed, devSecrets);
  const logs = captureLogs();
  const platform = await createDevPlatform({
    settings,
    seed,
    logger: createLogger({ name: 'dev-platform', level: 'debug', destination: logs.destination }),
    ...(options.clock && { clock: options.clock }),
    ...(options.clientDocumentCa !== undefined && { clientDocumentCa: options.clientDocumentCa }),
  });
  main.server.on('request', platform.app);
  ai.server.on('request', platform.aiApp);
  return {
    issuer: main.url,
    aiUrl: ai.url,
    platform,
    logs: logs.lines,
    async close() {
      await Promise.all([main.close(), ai.close()]);
      await platform.close();
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

// The dev platform behind an HTTP proxy that is its issuer, so that tokens stay genuine while the
// proxy counts the caller checks (GET /api/me) and, while `failing`, answers them 503: a platform
// that cannot check tokens, for tests of what a service does then.
export interface PlatformProxy extends Listening {
  failing: boolean;
  /** GET /api/me requests seen so far. */
  meChecks: number;
}

export interface ProxiedPlatform {
  readonly proxy: PlatformProxy;
  readonly platform: RunningPlatform;
  /** The issuer and API base every part uses: the proxy's address. */
  readonly issuer: string;
  close(): Promise<void>;
}

/** The platform, its issuer the proxy's address; `env` and `seed` as for startPlatform. */
export async function startProxiedPlatform(options: { env?: Record<string, string>; seed?: unknown } = {}): Promise<ProxiedPlatform> {
  let target = '';
  const state = { failing: false, meChecks: 0 };
  const forward = (req: IncomingMessage, res: ServerResponse) => {
    const isMe = req.method === 'GET' && req.url === '/api/me';
    if (isMe) state.meChecks += 1;
    if (isMe && state.failing) {
      res.writeHead(503, { 'content-type': 'application/json' }).end('{"error":"maintenance"}');
      return;
    }
    const upstream = httpRequest(`${target}${req.url ?? '/'}`, { method: req.method, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  };
  const proxy: PlatformProxy = Object.assign(state, await listen(forward));
  const platform = await startPlatform({ ...options, env: { ...options.env, PLATFORM_ISSUER: proxy.url } });
  target = platform.issuer;
  return {
    proxy,
    platform,
    issuer: proxy.url,
    async close() {
      await platform.close();
      await proxy.close();
    },
  };
}
