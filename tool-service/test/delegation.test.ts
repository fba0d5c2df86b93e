// The central promise, end to end on loopback: a real dev platform (reached through a proxy that
// can stage its outage), the real webhook API, the tool service over gRPC, and delegated tokens
// from a real token exchange. A tool runs only on a token delegated to this app, and only where
// the person and the app may both act.
import { delegatedToken, devSecrets, personToken, startProxiedPlatform } from '@platform/dev-platform/testing';
import type { IncomingMessage } from 'node:http';
import { healthStatus, listen, reflectedServices, startedForTests } from '@platform/tool-sdk/testing';
import { startedApiForTests } from '@platform/webhook-api/testing';
import { describe, expect, it } from 'vitest';
import { startToolService, startedToolServiceForTests } from './harness.ts';

// The platform's issuer is the proxy's address: tokens are issued for it and every part reaches the platform through it.
const stack = startedForTests(() => startProxiedPlatform());
const issuer = () => stack().proxy.url;
const api = startedApiForTests('SQLite', issuer);
const tools = startedToolServiceForTests(() => ({ platformUrl: issuer(), webhookApiUrl: api().url }));

const newWebhook = (companyId: number) => ({ companyId, name: 'Ops', url: 'https://hooks.example.com/in', deliveryMode: 'Realtime' });
const denied = (permission: string, companyId: number) => ({
  ok: false,
  codeName: 'PERMISSION_DENIED',
  details: `${permission} is needed at company ${companyId}, and the person and the app do not both hold it there.`,
});

describe('who may use a tool: person ∩ app, under delegation', () => {
  it('lets a person with the role act where the app has consent', async () => {
    const answer = await tools().client.call('create_webhook', newWebhook(1), await delegatedToken(issuer(), 'oscar'));
    expect(answer).toMatchObject({ ok: true, isError: false, result: { webhook: { companyId: 1, name: 'Ops' } } });
  });

  it('denies a person who has the role where the app lacks consent (manage at company 2, where the app may only view)', async () => {
    const token = await delegatedToken(issuer(), 'oscar');
    expect(await tools().client.call('create_webhook', newWebhook(2), token)).toMatchObject(denied('device-overview:manage', 2));
    expect(await tools().client.call('list_webhooks', { companyId: 2 }, token)).toMatchObject({ ok: true, isError: false });
  });

  it('denies a person who lacks the role where the app has consent (a viewer managing at company 1)', async () => {
    const token = await delegatedToken(issuer(), 'vera');
    expect(await tools().client.call('create_webhook', newWebhook(1), token)).toMatchObject(denied('device-overview:manage', 1));
    expect(await tools().client.call('list_webhooks', { companyId: 1 }, token)).toMatchObject({ ok: true, isError: false });
  });

  it('denies an owner who holds no role: owners get no bypass under delegation', async () => {
    const token = await delegatedToken(issuer(), 'olivia');
    expect(await tools().client.call('list_webhooks', { companyId: 1 }, token)).toMatchObject(denied('device-overview:view', 1));
    expect(await tools().client.call('whoami', {}, token)).toMatchObject({
      ok: true,
      result: { userId: 'u-olivia', companies: [{ id: 1, isOwner: false, permissions: [] }] },
    });
  });

  it('denies at a company where the app is not installed, even to a person with the role there', async () => {
    expect(await tools().client.call('list_webhooks', { companyId: 3 }, await delegatedToken(issuer(), 'oscar'))).toMatchObject(
      denied('device-overview:view', 3),
    );
  });
});

describe('which tokens a tool service takes', () => {
  const unauthenticated = (reason: string) => ({ ok: false, codeName: 'UNAUTHENTICATED', details: `the delegated token was refused: ${reason}` });

  it("refuses the person's own token, though the platform accepts it", async () => {
    expect(await tools().client.call('whoami', {}, await personToken(issuer(), 'oscar'))).toMatchObject(
      unauthenticated('the token is not delegated to this app'),
    );
  });

  it('refuses a token delegated to another app, so it cannot be replayed against these tools', async () => {
    const fleetToken = await delegatedToken(issuer(), 'oscar', 'fleet-insights', devSecrets.FLEET_INSIGHTS_CLIENT_SECRET);
    expect(await tools().client.call('whoami', {}, fleetToken)).toMatchObject(unauthenticated('the token is not delegated to this app'));
  });

  it('refuses an API token, which is a platform credential and no delegation', async () => {
    expect(await tools().client.call('whoami', {}, undefined, { authorization: [`ApiToken ${devSecrets.DEV_API_TOKEN_OSCAR}`] })).toMatchObject({
      codeName: 'UNAUTHENTICATED',
    });
  });

  it('refuses a token the platform rejects, and checks it again on the next call', async () => {
    const before = stack().proxy.meChecks;
    for (let i = 0; i < 2; i += 1)
      expect(await tools().client.call('whoami', {}, 'not-a-token')).toMatchObject(unauthenticated('the token is invalid or expired'));
    expect(stack().proxy.meChecks - before).toBe(2);
  });

  it('checks a good token once, then answers from the cache', async () => {
    const token = await delegatedToken(issuer(), 'oscar');
    const before = stack().proxy.meChecks;
    for (let i = 0; i < 3; i += 1) expect((await tools().client.call('whoami', {}, token)).ok).toBe(true);
    expect(stack().proxy.meChecks - before).toBe(1);
  });

  it('answers UNAVAILABLE, never UNAUTHENTICATED, while the platform answers 5xx; the tool does not run', async () => {
    const token = await delegatedToken(issuer(), 'oscar');
    stack().proxy.failing = true;
    try {
      const answer = await tools().client.call('create_webhook', { ...newWebhook(1), name: 'During the outage' }, token);
      expect(answer).toMatchObject({ ok: false, codeName: 'UNAVAILABLE', details: expect.stringContaining('the platform answered 503') as unknown });
    } finally {
      stack().proxy.failing = false;
    }
    expect(await tools().client.call('list_webhooks', { companyId: 1 }, token)).toMatchObject({ ok: true });
    const listed = await tools().client.call('list_webhooks', { companyId: 1 }, token);
    expect(JSON.stringify(listed)).not.toContain('During the outage');
  });
});

describe('the service as operators and the gateway see it', () => {
  it('is SERVING on the standard health service and lists itself through reflection', async () => {
    expect(await healthStatus(tools().address)).toBe('SERVING');
    expect(await healthStatus(tools().address, 'platform.tools.v1.ToolService')).toBe('SERVING');
    expect(await reflectedServices(tools().address)).toEqual(['grpc.health.v1.Health', 'platform.tools.v1.ToolService']);
  });

  it('honours the deadline: a tool waiting on a stalled webhook API ends DEADLINE_EXCEEDED and drops its request', async () => {
    const requests: IncomingMessage[] = [];
    const stalled = await listen((req) => {
      requests.push(req);
    });
    const service = await startToolService({ platformUrl: issuer(), webhookApiUrl: stalled.url });
    try {
      const started = Date.now();
      const answer = await service.client.call('list_webhooks', { companyId: 1 }, await delegatedToken(issuer(), 'oscar'), { deadlineMs: 700 });
      expect(answer).toMatchObject({ ok: false, codeName: 'DEADLINE_EXCEEDED' });
      expect(Date.now() - started).toBeLessThan(3_000);
      expect(requests).toHaveLength(1);
      await expect.poll(() => requests[0]?.socket.destroyed ?? requests[0]?.destroyed).toBe(true);
    } finally {
      await service.close();
      await stalled.close();
    }
  });

  it('never logs or leaks a delegated or a person token, in any part of the stack', async () => {
    const delegated = await delegatedToken(issuer(), 'oscar');
    const own = await personToken(issuer(), 'oscar');
    await tools().client.call('whoami', {}, delegated);
    await tools().client.call('whoami', {}, own);
    await tools().client.call('list_webhooks', { companyId: 1 }, delegated);
    const everything = [...tools().logs, ...api().logs, ...stack().platform.logs].join('\n');
    for (const secret of [delegated, own, devSecrets.WEBHOOK_TOOLS_CLIENT_SECRET]) expect(everything).not.toContain(secret);
  });
});
