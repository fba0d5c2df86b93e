import type { IncomingMessage, ServerResponse } from 'node:http';
import { inspect } from 'node:util';
import { appToken, devSecrets, personToken, startPlatform, type RunningPlatform } from '@platform/dev-platform/testing';
import { closedPort, discoveryDocument, listen, rejectionOf, startedForTests } from '@platform/tool-sdk/testing';
import { describe, expect, it } from 'vitest';
import { createDelegatedTokens, type DelegatedTokensOptions } from './delegated-tokens.ts';
import { DelegationError, delegationErrorCodes, type DelegationErrorCode } from './delegation-error.ts';

const mcpUrl = 'http://127.0.0.1:3000/mcp';
const platform = startedForTests(() => startPlatform());

function gatewayTokens(issuerUrl: string, overrides: Partial<DelegatedTokensOptions> = {}) {
  return createDelegatedTokens({ issuerUrl, clientId: 'mcp-gateway', clientSecret: devSecrets.MCP_GATEWAY_CLIENT_SECRET, timeoutMs: 5_000, ...overrides });
}

const refusal = (promise: Promise<unknown>): Promise<DelegationError> => rejectionOf(promise, DelegationError);

/** Neither the message nor anything kept for the logs repeats a token or the gateway's secret. */
function expectNoSecretIn(error: DelegationError, ...secrets: string[]) {
  const everything = `${error.message}\n${inspect(error, { depth: 8 })}`;
  for (const secret of [...secrets, devSecrets.MCP_GATEWAY_CLIENT_SECRET]) expect(everything).not.toContain(secret);
}

interface Exchange {
  readonly caller: string;
  readonly actor: string;
}

async function exchangeParts(issuer: string, actor = () => appToken(issuer, 'webhook-tools', devSecrets.WEBHOOK_TOOLS_CLIENT_SECRET)): Promise<Exchange> {
  return { caller: await personToken(issuer, 'oscar', { resource: mcpUrl }), actor: await actor() };
}

describe('DelegationError from the real platform', () => {
  async function refusedWith(parts: Exchange, options: { issuer?: string; appClientId?: string; overrides?: Partial<DelegatedTokensOptions> } = {}) {
    const tokens = gatewayTokens(options.issuer ?? platform().issuer, options.overrides);
    const error = await refusal(tokens.get(parts.caller, { appClientId: options.appClientId ?? 'webhook-tools', actorToken: () => parts.actor }));
    expectNoSecretIn(error, parts.caller, parts.actor);
    return error;
  }

  it('says token exchange is not enabled when the platform has it switched off', async () => {
    const switchedOff: RunningPlatform = await startPlatform({ env: { PLATFORM_TOKEN_EXCHANGE: 'false' } });
    try {
      const error = await refusedWith(await exchangeParts(switchedOff.issuer), { issuer: switchedOff.issuer });
      expect(error.code).toBe('EXCHANGE_DISABLED');
      expect(error.message).toMatch(/^token exchange is not enabled on the platform/);
    } finally {
      await switchedOff.close();
    }
  });

  it("names the app's client when it is linked to no app", async () => {
    const parts = await exchangeParts(platform().issuer, () => appToken(platform().issuer, 'legacy-sync', devSecrets.LEGACY_SYNC_CLIENT_SECRET));
    const error = await refusedWith(parts, { appClientId: 'legacy-sync' });
    expect(error.code).toBe('ACTOR_REFUSED');
    expect(error.message).toBe(
      "the platform did not accept the tool's app as the one acting for you (client legacy-sync: the actor's client legacy-sync is linked to no app). Only an administrator or the tool's operator can fix this; retrying now will not help.",
    );
  });

  it("refuses a person's token as the actor", async () => {
    const parts = await exchangeParts(platform().issuer, () => personToken(platform().issuer, 'vera'));
    const error = await refusedWith(parts);
    expect(error.code).toBe('ACTOR_REFUSED');
    expect(error.message).toContain("actor_token is invalid, expired, or not an app's client-credentials token");
  });

  it("says the caller's token was refused when it is not a token", async () => {
    const parts = await exchangeParts(platform().issuer);
    const error = await refusedWith({ ...parts, caller: 'not-a-token-at-all' });
    expect(error.code).toBe('SUBJECT_REFUSED');
    expect(error.message).toBe(
      'the platform refused your token for delegation (subject_token is invalid or expired): your sign-in may have expired. Sign in again, then retry.',
    );
  });

  it("says the caller's token was refused once it has expired", async () => {
    const parts = await exchangeParts(platform().issuer);
    const expired = await personToken(platform().issuer, 'oscar', { resource: mcpUrl, expired: true });
    expect((await refusedWith({ ...parts, caller: expired })).code).toBe('SUBJECT_REFUSED');
  });

  it('refuses a delegated token as the subject', async () => {
    const parts = await exchangeParts(platform().issuer);
    const delegated = await gatewayTokens(platform().issuer).get(parts.caller, { appClientId: 'webhook-tools', actorToken: () => parts.actor });
    const error = await refusedWith({ ...parts, caller: delegated });
    expect(error.code).toBe('SUBJECT_REFUSED');
    expect(error.message).toContain('subject_token is already delegated');
  });

  it("says the gateway's own client was refused when its secret is wrong: an operator's problem", async () => {
    const error = await refusedWith(await exchangeParts(platform().issuer), { overrides: { clientSecret: 'not-the-gateway-secret' } });
    expect(error.code).toBe('GATEWAY_CLIENT_REFUSED');
    expect(error.message).toBe(
      "the platform refused the MCP gateway's own client (its credentials were not accepted). This is a configuration problem of the gateway, for its operator to fix, not something you can change; retrying will not help until it is fixed.",
    );
    expect(error.message).not.toContain('not-the-gateway-secret');
  });

  it('says the gateway client was refused when it may not exchange', async () => {
    const error = await refusedWith(await exchangeParts(platform().issuer), {
      overrides: { clientId: 'fleet-insights', clientSecret: devSecrets.FLEET_INSIGHTS_CLIENT_SECRET },
    });
    expect(error.code).toBe('GATEWAY_CLIENT_REFUSED');
    expect(error.message).toContain('(unauthorized_client)');
  });

  it('calls a platform that does not listen an outage', async () => {
    const parts = await exchangeParts(platform().issuer);
    const error = await refusedWith(parts, { issuer: `http://127.0.0.1:${await closedPort()}` });
    expect(error.code).toBe('PLATFORM_UNAVAILABLE');
    expect(error.message).toBe(
      "the platform's authorization server could not be reached or answered with a server error (it could not be reached). This is an outage, not a problem with your request; try again later.",
    );
    expect(error.cause).toBeDefined();
  });
});

/** An authorization server on loopback that discovers normally and answers the token endpoint with `token`. */
async function stagedAuthorizationServer(token: (res: ServerResponse, req: IncomingMessage) => void, discovery?: (res: ServerResponse) => boolean) {
  let tokenRequests = 0;
  const server = await listen((req, res) => {
    if (req.url === '/.well-known/openid-configuration') {
      if (discovery?.(res)) return;
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(discoveryDocument(server.url)));
    } else if (req.method === 'POST' && req.url === '/token') {
      tokenRequests += 1;
      token(res, req);
    } else {
      res.writeHead(404).end();
    }
  });
  return { url: server.url, tokenRequests: () => tokenRequests, close: () => server.close() };
}

const json = (res: ServerResponse, status: number, body: unknown) =>
  res.writeHead(status, { 'content-type': 'application/json' }).end(typeof body === 'string' ? body : JSON.stringify(body));

const wellFormed = { access_token: 'delegated-1', issued_token_type: 'urn:ietf:params:oauth:token-type:access_token', token_type: 'Bearer', expires_in: 300 };
const caller = 'caller-token-value-0123456789';
const actor = 'actor-token-value-0123456789';
const service = { appClientId: 'webhook-tools', actorToken: () => actor };

describe('DelegationError from a platform in trouble', () => {
  interface StagedCase {
    readonly case: string;
    readonly answer: (res: ServerResponse) => void;
    readonly code: DelegationErrorCode;
    /** What the message says in parentheses, if anything. */
    readonly reason: string;
  }
  const text = (status: number, type: string, body: string) => (res: ServerResponse) => res.writeHead(status, { 'content-type': type }).end(body);

  it.each<StagedCase>([
    {
      case: 'a 503 with a JSON error',
      answer: (res) => json(res, 503, { error: 'temporarily_unavailable' }),
      code: 'PLATFORM_UNAVAILABLE',
      reason: '(it answered 503)',
    },
    { case: 'a 503 with a text page', answer: text(503, 'text/plain', 'down for maintenance'), code: 'PLATFORM_UNAVAILABLE', reason: '(it answered 503)' },
    { case: 'a 502 with an HTML page', answer: text(502, 'text/html', '<html>bad gateway</html>'), code: 'PLATFORM_UNAVAILABLE', reason: '(it answered 502)' },
    { case: 'a 429', answer: (res) => json(res, 429, { error: 'slow_down' }), code: 'PLATFORM_UNAVAILABLE', reason: '(it answered 429)' },
    { case: 'a 200 that is not JSON', answer: text(200, 'text/html', '<html>hello</html>'), code: 'PLATFORM_BAD_RESPONSE', reason: '' },
    {
      case: 'a 200 without an access token',
      answer: (res) => json(res, 200, { token_type: 'Bearer', expires_in: 300 }),
      code: 'PLATFORM_BAD_RESPONSE',
      reason: '',
    },
    {
      case: 'a 200 issuing a refresh token',
      answer: (res) => json(res, 200, { ...wellFormed, issued_token_type: 'urn:ietf:params:oauth:token-type:refresh_token' }),
      code: 'PLATFORM_BAD_RESPONSE',
      reason: '(the token it issued is not a bearer access token)',
    },
    {
      case: 'a 400 of an unknown kind',
      answer: (res) => json(res, 400, { error: 'invalid_target', error_description: 'no such audience' }),
      code: 'EXCHANGE_REFUSED',
      reason: '(invalid_target: no such audience)',
    },
    {
      case: 'a 401 challenge without a body',
      answer: (res) => res.writeHead(401, { 'www-authenticate': 'Basic realm="token"' }).end(),
      code: 'GATEWAY_CLIENT_REFUSED',
      reason: '(its credentials were not accepted)',
    },
  ])('on $case: $code', async ({ answer, code, reason }) => {
    const staged = await stagedAuthorizationServer(answer);
    try {
      const error = await refusal(gatewayTokens(staged.url).get(caller, service));
      expect(error.code).toBe(code);
      expect(error.message.slice(0, 30)).toBe(delegationErrorCodes[code].slice(0, 30));
      expect(error.message).toContain(reason);
      expectNoSecretIn(error, caller, actor);
    } finally {
      await staged.close();
    }
  });

  it('does not quote a description that repeats a token of the exchange', async () => {
    const staged = await stagedAuthorizationServer((res) =>
      json(res, 400, { error: 'invalid_request', error_description: `subject_token ${caller} is unknown` }),
    );
    try {
      const error = await refusal(gatewayTokens(staged.url).get(caller, service));
      expect(error.code).toBe('EXCHANGE_REFUSED');
      expect(error.message).not.toContain(caller);
    } finally {
      await staged.close();
    }
  });

  it('calls a token endpoint that does not answer in time an outage', async () => {
    const staged = await stagedAuthorizationServer(() => undefined);
    try {
      const started = performance.now();
      const error = await refusal(gatewayTokens(staged.url, { timeoutMs: 300 }).get(caller, service));
      expect(error.code).toBe('PLATFORM_UNAVAILABLE');
      expect(error.message).toContain('(it did not answer in time)');
      expect(performance.now() - started).toBeLessThan(3_000);
    } finally {
      await staged.close();
    }
  });

  it('keeps no failure: the next get() exchanges again', async () => {
    let failing = true;
    const staged = await stagedAuthorizationServer((res) => (failing ? json(res, 503, { error: 'temporarily_unavailable' }) : json(res, 200, wellFormed)));
    try {
      const tokens = gatewayTokens(staged.url);
      const failures = await Promise.allSettled(Array.from({ length: 5 }, () => tokens.get(caller, service)));
      expect(failures.map((result) => result.status)).toEqual(Array(5).fill('rejected'));
      expect(staged.tokenRequests()).toBe(1);
      failing = false;
      expect(await tokens.get(caller, service)).toBe('delegated-1');
      expect(await tokens.get(caller, service)).toBe('delegated-1');
      expect(staged.tokenRequests()).toBe(2);
    } finally {
      await staged.close();
    }
  });

  it('discovers again after discovery failed', async () => {
    let discoveryFails = true;
    const staged = await stagedAuthorizationServer(
      (res) => json(res, 200, wellFormed),
      (res) => {
        if (!discoveryFails) return false;
        json(res, 503, '{}');
        return true;
      },
    );
    try {
      const tokens = gatewayTokens(staged.url);
      expect((await refusal(tokens.get(caller, service))).code).toBe('PLATFORM_UNAVAILABLE');
      discoveryFails = false;
      expect(await tokens.get(caller, service)).toBe('delegated-1');
    } finally {
      await staged.close();
    }
  });

  it('uses a token of unknown lifetime once and does not keep it', async () => {
    const staged = await stagedAuthorizationServer((res) => json(res, 200, { ...wellFormed, expires_in: undefined }));
    try {
      const tokens = gatewayTokens(staged.url);
      expect(await tokens.get(caller, service)).toBe('delegated-1');
      expect(await tokens.get(caller, service)).toBe('delegated-1');
      expect(staged.tokenRequests()).toBe(2);
    } finally {
      await staged.close();
    }
  });
});

describe('delegationErrorCodes', () => {
  it('has a message for every code that completes the sentence and holds no placeholder', () => {
    for (const [code, message] of Object.entries(delegationErrorCodes)) {
      expect(message, code).toMatch(/^[a-z]/);
      expect(message, code).toMatch(/\.$/);
      expect(message, code).not.toMatch(/undefined|\(\)/);
    }
  });
});
