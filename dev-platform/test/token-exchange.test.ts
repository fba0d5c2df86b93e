import { rejectionOf, startedForTests } from '@platform/tool-sdk/testing';
import { decodeJwt } from 'jose';
import * as oauth from 'openid-client';
import { describe, expect, it } from 'vitest';
import { devSecrets } from './dev-env.ts';
import { accessTokenType, appToken, clientFor, personToken, startPlatform, tokenExchange } from './harness.ts';

const running = startedForTests(() => startPlatform());

async function exchange(params: Record<string, string>, clientId = 'mcp-gateway', secret: string = devSecrets.MCP_GATEWAY_CLIENT_SECRET) {
  const client = await clientFor(running().issuer, clientId, secret);
  return oauth.genericGrantRequest(client, tokenExchange, params);
}

async function refusal(promise: Promise<unknown>): Promise<{ error: string; description: string | undefined }> {
  const refused = await rejectionOf(promise, oauth.ResponseBodyError);
  return { error: refused.error, description: refused.error_description };
}

async function standardParams(
  username = 'oscar',
  actor: { id: string; secret: string } = { id: 'webhook-tools', secret: devSecrets.WEBHOOK_TOOLS_CLIENT_SECRET },
) {
  return {
    subject_token: await personToken(running().issuer, username),
    subject_token_type: accessTokenType,
    actor_token: await appToken(running().issuer, actor.id, actor.secret),
    actor_token_type: accessTokenType,
  };
}

describe('token exchange (RFC 8693)', () => {
  it('issues a delegated token: sub = person, act.sub = app, aud = platform API, scope api, at most 300 s, no refresh token', async () => {
    const response = await exchange(await standardParams());
    expect(response.issued_token_type).toBe(accessTokenType);
    expect(response.token_type.toLowerCase()).toBe('bearer');
    expect(response.refresh_token).toBeUndefined();
    expect(response.expires_in).toBeLessThanOrEqual(300);
    const claims = decodeJwt(response.access_token);
    expect(claims.sub).toBe('u-oscar');
    expect(claims.act).toEqual({ sub: 'webhook-tools' });
    expect(claims.aud).toBe(running().issuer);
    expect(claims.scope).toBe('api');
    expect((claims.exp ?? 0) - (claims.iat ?? 0)).toBeLessThanOrEqual(300);
  });

  it("never outlives the person's token", async () => {
    const subject = await personToken(running().issuer, 'oscar', { expiresIn: 42 });
    const response = await exchange({ ...(await standardParams()), subject_token: subject });
    expect(decodeJwt(response.access_token).exp).toBe(decodeJwt(subject).exp);
    expect(response.expires_in).toBeLessThanOrEqual(42);
  });

  it('accepts a person token issued for the MCP server as the subject', async () => {
    const subject = await personToken(running().issuer, 'oscar', { resource: 'http://127.0.0.1:3000/mcp' });
    const response = await exchange({ ...(await standardParams()), subject_token: subject });
    expect(decodeJwt(response.access_token).aud).toBe(running().issuer);
  });

  it.each([
    ['a malformed subject token', { subject_token: 'not-a-token' }],
    ['an app token as the subject', 'app-as-subject'],
    ['a delegated token as the subject', 'delegated-as-subject'],
    ['a person token as the actor', 'person-as-actor'],
    ['a wrong subject token type', { subject_token_type: 'urn:ietf:params:oauth:token-type:id_token' }],
    ['no actor token', 'no-actor'],
  ] as const)('answers invalid_request for %s', async (_case, change) => {
    const params: Record<string, string> = await standardParams();
    if (change === 'app-as-subject') params.subject_token = params.actor_token ?? '';
    else if (change === 'person-as-actor') params.actor_token = params.subject_token ?? '';
    else if (change === 'delegated-as-subject') params.subject_token = (await exchange(await standardParams())).access_token;
    else if (change === 'no-actor') {
      delete params.actor_token;
      delete params.actor_token_type;
    } else Object.assign(params, change);
    expect((await refusal(exchange(params))).error).toBe('invalid_request');
  });

  it('answers invalid_request for an expired subject token', async () => {
    const subject = await personToken(running().issuer, 'oscar', { expired: true });
    const result = await refusal(exchange({ ...(await standardParams()), subject_token: subject }));
    expect(result.error).toBe('invalid_request');
  });

  it('answers unauthorized_client for a client not allowed to exchange', async () => {
    const result = await refusal(exchange(await standardParams(), 'webhook-tools', devSecrets.WEBHOOK_TOOLS_CLIENT_SECRET));
    expect(result.error).toBe('unauthorized_client');
  });

  it.each([['audience'], ['resource']])('answers invalid_target for another %s', async (name) => {
    const result = await refusal(exchange({ ...(await standardParams()), [name]: 'https://elsewhere.example/api' }));
    expect(result.error).toBe('invalid_target');
  });

  it("refuses as the actor an app's token issued for another resource (the MCP server)", async () => {
    const app = await clientFor(running().issuer, 'webhook-tools', devSecrets.WEBHOOK_TOOLS_CLIENT_SECRET);
    const forMcp = (await oauth.clientCredentialsGrant(app, { scope: 'api', resource: 'http://127.0.0.1:3000/mcp' })).access_token;
    expect(decodeJwt(forMcp).aud).toBe('http://127.0.0.1:3000/mcp');
    const result = await refusal(exchange({ ...(await standardParams()), actor_token: forMcp }));
    expect(result).toEqual({ error: 'invalid_request', description: 'actor_token is meant for another audience' });
  });

  it('refuses an actor whose client is linked to no app', async () => {
    const result = await refusal(exchange(await standardParams('oscar', { id: 'legacy-sync', secret: devSecrets.LEGACY_SYNC_CLIENT_SECRET })));
    expect(result.error).toBe('invalid_request');
    expect(result.description).toContain('linked to no app');
  });

  it('refuses the exchange when it is switched off', async () => {
    const off = await startPlatform({ env: { PLATFORM_TOKEN_EXCHANGE: 'false' } });
    try {
      const gateway = await clientFor(off.issuer, 'mcp-gateway', devSecrets.MCP_GATEWAY_CLIENT_SECRET);
      const params = {
        subject_token: await personToken(off.issuer, 'oscar'),
        subject_token_type: accessTokenType,
        actor_token: await appToken(off.issuer, 'webhook-tools', devSecrets.WEBHOOK_TOOLS_CLIENT_SECRET),
        actor_token_type: accessTokenType,
      };
      const result = await refusal(oauth.genericGrantRequest(gateway, tokenExchange, params));
      expect(result.error).toBe('unsupported_grant_type');
    } finally {
      await off.close();
    }
  });

  it('gives apps client-credentials JWTs with scope api and no refresh token', async () => {
    const config = await clientFor(running().issuer, 'webhook-tools', devSecrets.WEBHOOK_TOOLS_CLIENT_SECRET);
    const response = await oauth.clientCredentialsGrant(config, { scope: 'api' });
    expect(response.refresh_token).toBeUndefined();
    const claims = decodeJwt(response.access_token);
    expect(claims).toMatchObject({ sub: 'webhook-tools', client_id: 'webhook-tools', scope: 'api', aud: running().issuer, iss: running().issuer });
  });

  it('refuses wrong client credentials with invalid_client', async () => {
    const config = await clientFor(running().issuer, 'webhook-tools', 'not-the-secret');
    const error = await oauth.clientCredentialsGrant(config, { scope: 'api' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Error);
    expect(JSON.stringify((error as { cause?: unknown }).cause ?? error)).toContain('invalid_client');
  });
});
