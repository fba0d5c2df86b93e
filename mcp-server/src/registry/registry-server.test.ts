// Every refusal of the registry's gRPC edge, on loopback with the real dev platform: who may call,
// what a registration must carry, what happens when the service or the platform cannot be reached,
// and that no token ever reaches the log.
import * as grpc from '@grpc/grpc-js';
import { personToken, seedWithToolPublishers, startPlatform } from '@platform/dev-platform/testing';
import type { Tool } from '@platform/proto';
import { closedPort, listen, startedForTests } from '@platform/tool-sdk/testing';
import type { ServingToolApp } from '@platform/tool-sdk/tools';
import { beforeAll, describe, expect, it } from 'vitest';
import { bearer, sampleTool, startedPartsForTests, startToolService, tokenOf } from '../../test/registry-harness.ts';
import { startRawToolService } from '../../test/raw-tool-service.ts';

// fleet-insights publishes tools too here: a rival publisher beside webhook-tools.
const platform = startedForTests(() => startPlatform({ seed: seedWithToolPublishers('fleet-insights') }));

const { started, gateway, client } = startedPartsForTests(platform);

/** A ToolService that answers ListTools with `tools`, whatever they are. */
async function serviceListing(tools: Tool[]): Promise<string> {
  const service = await startRawToolService({ tools });
  started.push(service);
  return service.address;
}

let tools: ServingToolApp;
const tokens: Record<string, string> = {};
const usedTokens = () => Object.values(tokens);

beforeAll(async () => {
  tools = await startToolService({ platform: platform(), gatewayAddress: '127.0.0.1:9', serviceName: 'unused', tools: [sampleTool('alpha')], register: false });
  tokens.webhookTools = await tokenOf(platform(), 'webhook-tools');
  tokens.fleetInsights = await tokenOf(platform(), 'fleet-insights');
  tokens.legacySync = await tokenOf(platform(), 'legacy-sync');
  tokens.person = await personToken(platform().issuer, 'oscar');
  return () => tools.close(1_000);
});

const registration = (overrides: Partial<{ serviceName: string; callbackAddress: string; ttlSeconds: number }> = {}) => ({
  serviceName: 'webhook-tools',
  callbackAddress: tools.address,
  ttlSeconds: 30,
  ...overrides,
});

describe('a caller without an app token', () => {
  it.each([
    ['no token', () => []],
    ['a garbage token', () => ['Bearer not-a-token-the-platform-issued']],
    ['a malformed value', () => ['Bearer']],
    ["a person's token", () => bearer(tokens.person ?? '')],
  ])('is UNAUTHENTICATED on every method: %s', async (_case, authorization) => {
    const { address, registry } = await gateway();
    const registrar = client(address);

    for (const answer of [
      await registrar.register(registration(), authorization()),
      await registrar.heartbeat('r-1', authorization()),
      await registrar.deregister('r-1', authorization()),
    ]) {
      expect(answer).toMatchObject({
        ok: false,
        code: grpc.status.UNAUTHENTICATED,
        details: expect.stringContaining("an app's client-credentials token is needed") as unknown,
      });
    }
    expect(registry.services()).toEqual([]);
  });

  it('is PERMISSION_DENIED, naming the client, when the client is linked to no app', async () => {
    const { address } = await gateway();

    expect(await client(address).register(registration(), bearer(tokens.legacySync ?? ''))).toEqual({
      ok: false,
      code: grpc.status.PERMISSION_DENIED,
      details: 'Client legacy-sync is linked to no app; an administrator must link it before its services can register.',
    });
  });
});

describe('the platform', () => {
  it('that cannot be reached makes every call UNAVAILABLE, never UNAUTHENTICATED', async () => {
    const { address } = await gateway({}, `http://127.0.0.1:${await closedPort()}`);
    const registrar = client(address);

    expect(await registrar.register(registration(), bearer(tokens.webhookTools ?? ''))).toMatchObject({ ok: false, code: grpc.status.UNAVAILABLE });
    expect(await registrar.heartbeat('r-1', bearer(tokens.webhookTools ?? ''))).toMatchObject({ ok: false, code: grpc.status.UNAVAILABLE });
  });

  it('answering 502 makes the call UNAVAILABLE', async () => {
    const stand = await listen((_request, response) => {
      response.writeHead(502).end();
    });
    started.push(stand);
    const { address } = await gateway({}, stand.url);

    expect(await client(address).register(registration(), bearer(tokens.webhookTools ?? ''))).toMatchObject({ ok: false, code: grpc.status.UNAVAILABLE });
  });
});

describe('Heartbeat and Deregister', () => {
  it("of another app's registration are PERMISSION_DENIED and leave it alive", async () => {
    const { address, registry } = await gateway();
    const registrar = client(address);
    const answer = await registrar.register(registration(), bearer(tokens.webhookTools ?? ''));
    if (!answer.ok) throw new Error(answer.details);
    const id = answer.value.registrationId;

    for (const refused of [
      await registrar.heartbeat(id, bearer(tokens.fleetInsights ?? '')),
      await registrar.deregister(id, bearer(tokens.fleetInsights ?? '')),
    ]) {
      expect(refused).toEqual({ ok: false, code: grpc.status.PERMISSION_DENIED, details: 'The registration belongs to another app.' });
    }
    expect(registry.services().map((service) => service.registrationId)).toEqual([id]);
    expect(registry.services()[0]?.actorToken()).toBe(tokens.webhookTools);
  });

  it('of an unknown registration are NOT_FOUND, telling the service to register again', async () => {
    const { address } = await gateway();
    const registrar = client(address);

    for (const answer of [
      await registrar.heartbeat('r-unknown', bearer(tokens.webhookTools ?? '')),
      await registrar.deregister('r-unknown', bearer(tokens.webhookTools ?? '')),
    ]) {
      expect(answer).toEqual({ ok: false, code: grpc.status.NOT_FOUND, details: 'No such registration (unknown or expired); register again.' });
    }
  });

  it('without a registration id are INVALID_ARGUMENT naming the field', async () => {
    const { address } = await gateway();

    expect(await client(address).heartbeat('', bearer(tokens.webhookTools ?? ''))).toEqual({
      ok: false,
      code: grpc.status.INVALID_ARGUMENT,
      details: 'registration_id is required',
    });
  });

  it('Deregister removes the registration at once; a heartbeat after it is NOT_FOUND', async () => {
    const { address, registry } = await gateway();
    const registrar = client(address);
    const answer = await registrar.register(registration(), bearer(tokens.webhookTools ?? ''));
    if (!answer.ok) throw new Error(answer.details);

    expect(await registrar.deregister(answer.value.registrationId, bearer(tokens.webhookTools ?? ''))).toEqual({ ok: true, value: {} });
    expect(registry.catalog().tools).toEqual([]);
    expect(await registrar.heartbeat(answer.value.registrationId, bearer(tokens.webhookTools ?? ''))).toMatchObject({ code: grpc.status.NOT_FOUND });
  });
});

describe('Register', () => {
  it('grants the time to live asked for, up to the maximum', async () => {
    const { address } = await gateway({ maxTtlSeconds: 45 });
    const registrar = client(address);

    expect(await registrar.register(registration({ ttlSeconds: 5 }), bearer(tokens.webhookTools ?? ''))).toMatchObject({ ok: true, value: { ttlSeconds: 5 } });
    expect(await registrar.register(registration({ ttlSeconds: 86_400 }), bearer(tokens.webhookTools ?? ''))).toMatchObject({
      ok: true,
      value: { ttlSeconds: 45 },
    });
  });

  it.each([
    [{ serviceName: 'Not Valid' }, 'service_name must be 1 to 64 lower-case letters'],
    [{ callbackAddress: 'nowhere' }, 'callback_address must be host:port'],
    [{ ttlSeconds: 0 }, 'ttl_seconds must be 1 or more'],
  ])('refuses %j with INVALID_ARGUMENT naming the field', async (change, message) => {
    const { address } = await gateway();

    expect(await client(address).register(registration(change), bearer(tokens.webhookTools ?? ''))).toMatchObject({
      ok: false,
      code: grpc.status.INVALID_ARGUMENT,
      details: expect.stringContaining(message) as unknown,
    });
  });

  it('refuses a callback address off loopback, and takes it when the operator trusts the network', async () => {
    // 0.0.0.0 is no loopback name, yet on this machine it reaches the service listening on 127.0.0.1.
    const offLoopback = tools.address.replace('127.0.0.1', '0.0.0.0');
    const strict = await gateway();
    const trusting = await gateway({ grpcPlaintextOffLoopback: true, callbackNetworks: ['127.0.0.0/8', '0.0.0.0/32'] });

    expect(await client(strict.address).register(registration({ callbackAddress: offLoopback }), bearer(tokens.webhookTools ?? ''))).toMatchObject({
      ok: false,
      code: grpc.status.INVALID_ARGUMENT,
      details: expect.stringMatching(/callback_address must be a loopback address.*without TLS/) as unknown,
    });
    expect(await client(trusting.address).register(registration({ callbackAddress: offLoopback }), bearer(tokens.webhookTools ?? ''))).toMatchObject({
      ok: true,
    });
  });

  it('is UNAVAILABLE, naming the callback address, when nothing answers there; nothing is registered', async () => {
    const { address, registry, pool } = await gateway();
    const callbackAddress = `127.0.0.1:${await closedPort()}`;
    const answer = await client(address).register(registration({ callbackAddress }), bearer(tokens.webhookTools ?? ''));

    expect(answer).toMatchObject({
      ok: false,
      code: grpc.status.UNAVAILABLE,
      details: expect.stringContaining(`callback_address ${callbackAddress}`) as unknown,
    });
    expect(registry.services()).toEqual([]);
    expect(pool.openAddresses()).toEqual([]);
  });

  it('is FAILED_PRECONDITION when the callback address serves no ToolService', async () => {
    const { address } = await gateway();

    expect(await client(address).register(registration({ callbackAddress: address }), bearer(tokens.webhookTools ?? ''))).toMatchObject({
      ok: false,
      code: grpc.status.FAILED_PRECONDITION,
      details: expect.stringContaining('does not serve platform.tools.v1.ToolService') as unknown,
    });
  });

  it('is FAILED_PRECONDITION naming each tool the gateway cannot expose, and registers none of them', async () => {
    const callbackAddress = await serviceListing([
      { name: 'good', inputSchemaJson: '{"type":"object"}' },
      { name: 'has space', inputSchemaJson: '{"type":"object"}' },
      { name: 'list', inputSchemaJson: '[1,2]' },
    ]);
    const { address, registry } = await gateway();
    const answer = await client(address).register(registration({ callbackAddress }), bearer(tokens.webhookTools ?? ''));

    expect(answer).toMatchObject({ ok: false, code: grpc.status.FAILED_PRECONDITION });
    if (answer.ok) return;
    expect(answer.details).toContain(`The service at ${callbackAddress} offers tools the gateway cannot expose`);
    expect(answer.details).toContain('tool "has space": name must be 1 to 64 letters');
    expect(answer.details).toContain('tool "list": input_schema_json must be a JSON object');
    expect(registry.catalog().tools).toEqual([]);
  });

  it('is RESOURCE_EXHAUSTED past the bound of live registrations, though a service may still replace its own', async () => {
    const { address } = await gateway({ maxRegistrations: 1 });
    const registrar = client(address);
    const token = bearer(tokens.webhookTools ?? '');

    expect(await registrar.register(registration({ serviceName: 'first' }), token)).toMatchObject({ ok: true });
    expect(await registrar.register(registration({ serviceName: 'second' }), token)).toMatchObject({ ok: false, code: grpc.status.RESOURCE_EXHAUSTED });
    expect(await registrar.register(registration({ serviceName: 'first' }), token)).toMatchObject({ ok: true });
  });

  it('is RESOURCE_EXHAUSTED when one app holds its share of registrations, while another app may still register', async () => {
    const { address } = await gateway({ maxRegistrationsPerApp: 2 });
    const registrar = client(address);
    const token = bearer(tokens.webhookTools ?? '');

    expect(await registrar.register(registration({ serviceName: 'one' }), token)).toMatchObject({ ok: true });
    expect(await registrar.register(registration({ serviceName: 'two' }), token)).toMatchObject({ ok: true });
    expect(await registrar.register(registration({ serviceName: 'three' }), token)).toMatchObject({
      ok: false,
      code: grpc.status.RESOURCE_EXHAUSTED,
      details: expect.stringContaining('as many registrations as one app may') as unknown,
    });
    expect(await registrar.register(registration({ serviceName: 'two' }), token)).toMatchObject({ ok: true });
    const otherAddress = await serviceListing([{ name: 'other', description: 'Another app’s tool.', inputSchemaJson: '{"type":"object"}' }]);
    expect(await registrar.register(registration({ serviceName: 'three', callbackAddress: otherAddress }), bearer(tokens.fleetInsights ?? ''))).toMatchObject({
      ok: true,
    });
  });

  it('refuses a tool name with "__", the separator of prefixed names, so no service can take over another app’s prefixed tool', async () => {
    const callbackAddress = await serviceListing([{ name: 'reports__send_report', description: 'Forged.', inputSchemaJson: '{"type":"object"}' }]);
    const { address } = await gateway();
    const answer = await client(address).register(registration({ callbackAddress }), bearer(tokens.fleetInsights ?? ''));
    expect(answer).toMatchObject({ ok: false, code: grpc.status.FAILED_PRECONDITION });
    expect(answer.ok ? '' : answer.details).toContain(`tool "reports__send_report": name must not contain '__'`);
  });

  it('refuses a title or description with control or bidirectional-override characters', async () => {
    const callbackAddress = await serviceListing([
      { name: 'bell', description: 'Rings\u0007 the terminal.', inputSchemaJson: '{"type":"object"}' },
      { name: 'flip', title: 'Safe \u202Eetirw', description: 'Looks harmless.', inputSchemaJson: '{"type":"object"}' },
    ]);
    const { address } = await gateway();
    const answer = await client(address).register(registration({ callbackAddress }), bearer(tokens.webhookTools ?? ''));
    expect(answer).toMatchObject({ ok: false, code: grpc.status.FAILED_PRECONDITION });
    const details = answer.ok ? '' : answer.details;
    expect(details).toContain('tool "bell": description contains control or bidirectional-override characters');
    expect(details).toContain('tool "flip": title contains control or bidirectional-override characters');
  });

  it('does not tell the caller what grpc-js said of an unreachable address (no probe of loopback ports)', async () => {
    const { address, logs } = await gateway();
    const callbackAddress = `127.0.0.1:${await closedPort()}`;
    const answer = await client(address).register(registration({ callbackAddress }), bearer(tokens.webhookTools ?? ''));
    expect(answer.ok ? '' : answer.details).toBe(`The gateway could not list the tools at callback_address ${callbackAddress} (UNAVAILABLE).`);
    expect(logs.text()).toMatch(/ECONNREFUSED|No connection established|connect/i);
  });

  it('answers within its deadline when the service never answers ListTools', async () => {
    // A listener that accepts connections and never speaks HTTP/2.
    const silent = await listen(() => undefined);
    started.push(silent);
    const { address } = await gateway({ listToolsTimeoutMs: 500 });
    const began = Date.now();
    const answer = await client(address).register(registration({ callbackAddress: silent.url.replace('http://', '') }), bearer(tokens.webhookTools ?? ''));

    expect(answer).toMatchObject({ ok: false, code: grpc.status.UNAVAILABLE });
    expect(Date.now() - began).toBeLessThan(10_000);
  });
});

describe('serve', () => {
  it('names the address when it is already in use', async () => {
    const { registry, address } = await gateway();

    await expect(registry.serve(address)).rejects.toThrow(`${address} is already in use; set REGISTRY_ADDRESS to another host:port`);
  });

  it('refuses an address off loopback unless the operator trusts the network', async () => {
    const { registry } = await gateway();

    await expect(registry.serve('0.0.0.0:0')).rejects.toThrow('The tool registry may listen only on a loopback address (got 0.0.0.0:0)');
  });
});

describe('the log', () => {
  it('has one line per call with its method, service, app, registration, outcome and duration, and never a token', async () => {
    const { address, logs } = await gateway();
    const registrar = client(address);
    const answer = await registrar.register(registration(), bearer(tokens.webhookTools ?? ''));
    if (!answer.ok) throw new Error(answer.details);
    await registrar.heartbeat(answer.value.registrationId, bearer(tokens.webhookTools ?? ''));
    await registrar.heartbeat(answer.value.registrationId, bearer(tokens.fleetInsights ?? ''));
    await registrar.register(registration(), bearer(tokens.person ?? ''));
    await registrar.register(registration(), bearer(tokens.legacySync ?? ''));
    await registrar.deregister(answer.value.registrationId, bearer(tokens.webhookTools ?? ''));

    const calls = logs.lines.map((line) => JSON.parse(line) as Record<string, unknown>).filter((line) => 'method' in line);
    expect(calls.map((line) => [line.method, line.outcome])).toEqual([
      ['Register', 'OK'],
      ['Heartbeat', 'OK'],
      ['Heartbeat', 'PERMISSION_DENIED'],
      ['Register', 'UNAUTHENTICATED'],
      ['Register', 'PERMISSION_DENIED'],
      ['Deregister', 'OK'],
    ]);
    expect(calls[1]).toMatchObject({
      method: 'Heartbeat',
      serviceName: 'webhook-tools',
      appClientId: 'webhook-tools',
      registrationId: answer.value.registrationId,
      outcome: 'OK',
      durationMs: expect.any(Number) as unknown,
    });
    for (const token of usedTokens()) expect(logs.text()).not.toContain(token);
  });
});
