// Who may publish tools: only apps the platform marks as tool publishers (GET /api/apps/me), and
// among them only those the operator lists when it does. On the dev platform's default seed, where
// webhook-tools is the one publisher and fleet-insights is an ordinary app with client credentials.
import * as grpc from '@grpc/grpc-js';
import { startPlatform } from '@platform/dev-platform/testing';
import { listen, startedForTests } from '@platform/tool-sdk/testing';
import type { ServingToolApp } from '@platform/tool-sdk/tools';
import { beforeAll, describe, expect, it } from 'vitest';
import { bearer, sampleTool, startedPartsForTests, startToolService, tokenOf } from '../../test/registry-harness.ts';

const platform = startedForTests(() => startPlatform());

const { started, gateway, client } = startedPartsForTests(platform);

let service: ServingToolApp;
beforeAll(async () => {
  service = await startToolService({
    platform: platform(),
    gatewayAddress: '127.0.0.1:9',
    serviceName: 'unused',
    tools: [sampleTool('whoami')],
    register: false,
  });
  return () => service.close(1_000);
});

const registration = (serviceName = 'webhook-tools') => ({ serviceName, callbackAddress: service.address, ttlSeconds: 30 });

describe('an app the platform does not mark as a tool publisher', () => {
  it('is refused PERMISSION_DENIED naming the app and why, and registers nothing', async () => {
    const { address, registry } = await gateway();
    const registrar = client(address);

    const answer = await registrar.register(registration(), bearer(await tokenOf(platform(), 'fleet-insights')));

    expect(answer).toEqual({
      ok: false,
      code: grpc.status.PERMISSION_DENIED,
      details:
        'The platform does not mark the app fleet-insights (client fleet-insights) as a tool publisher, so it may not register tool services; ' +
        'a platform administrator decides which apps publish tools.',
    });
    expect(registry.services()).toEqual([]);
  });

  it('cannot take a publisher’s tool names by registering its service name first', async () => {
    const { address, registry } = await gateway();
    const registrar = client(address);

    expect(await registrar.register(registration('webhook-tools'), bearer(await tokenOf(platform(), 'fleet-insights')))).toMatchObject({
      ok: false,
      code: grpc.status.PERMISSION_DENIED,
    });
    expect(await registrar.register(registration('webhook-tools'), bearer(await tokenOf(platform(), 'webhook-tools')))).toMatchObject({ ok: true });
    expect(registry.catalog().byName('whoami')?.service.appClientId).toBe('webhook-tools');
  });
});

describe("the operator's allow-list", () => {
  it('narrows the publishers further: a publisher not listed is refused, naming the setting', async () => {
    const { address } = await gateway({ allowedApps: ['reports'] });
    const registrar = client(address);

    expect(await registrar.register(registration(), bearer(await tokenOf(platform(), 'webhook-tools')))).toEqual({
      ok: false,
      code: grpc.status.PERMISSION_DENIED,
      details: "This gateway's operator lets only some tool publishers register here (REGISTRY_ALLOWED_APPS), and the app webhook-tools is not one of them.",
    });
  });

  it('lets a listed publisher in, and never an app the platform does not mark', async () => {
    const { address } = await gateway({ allowedApps: ['webhook-tools', 'fleet-insights'] });
    const registrar = client(address);

    expect(await registrar.register(registration(), bearer(await tokenOf(platform(), 'webhook-tools')))).toMatchObject({ ok: true });
    expect(await registrar.register(registration('other'), bearer(await tokenOf(platform(), 'fleet-insights')))).toMatchObject({
      ok: false,
      code: grpc.status.PERMISSION_DENIED,
    });
  });
});

describe('a publisher the platform stops marking', () => {
  it('is refused at its next heartbeat, and its tools go at once', async () => {
    // A stand-in for GET /api/apps/me whose answer the test turns; the registry asks it on every call.
    let publisher = true;
    const stand = await listen((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ clientId: 'webhook-tools', appKey: 'webhook-tools', name: 'Webhook tools', toolPublisher: publisher }));
    });
    started.push(stand);
    const { address, registry } = await gateway({ appCheckCacheSeconds: 0 }, stand.url);
    const registrar = client(address);
    const answer = await registrar.register(registration(), bearer('app-token'));
    if (!answer.ok) throw new Error(answer.details);
    expect(registry.catalog().byName('whoami')).toBeDefined();

    publisher = false;

    expect(await registrar.heartbeat(answer.value.registrationId, bearer('app-token'))).toMatchObject({ ok: false, code: grpc.status.PERMISSION_DENIED });
    expect(registry.catalog().tools).toEqual([]);
    expect(registry.services()).toEqual([]);
  });
});
