// Two replicas of the gateway on one PostgreSQL: a service registered at one is listed by both, a
// heartbeat at the other renews it (and hands both the app's new token), its expiry is seen by
// both, each announces every change to its own MCP clients, and registrations racing at both for
// an app's last places never pass the limit; the apps' tokens are kept sealed, usable by the
// replicas only. Real gateways, real MCP SDK clients, the real platform.
import * as grpc from '@grpc/grpc-js';
import { devSecrets, personToken, seedWithToolPublishers, startPlatform, type RunningPlatform } from '@platform/dev-platform/testing';
import { sessionRequest } from '@platform/devtools/modern-request';
import { freshDatabase } from '@platform/devtools/postgres-cluster';
import { createLogger } from '@platform/tool-sdk';
import { captureLogs, listenOnFreePort, until } from '@platform/tool-sdk/testing';
import pg from 'pg';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import { createMcpGateway, type McpGateway } from '../src/mcp-gateway.ts';
import { createTokenSeal, openPostgresRegistrationStore } from '../src/registry/index.ts';
import { loadMcpServerSettings } from '../src/settings.ts';
import { bearer, freshSchema, registryClient, sampleTool, startGateway, startToolService, testTokenSeal, tokenOf } from './registry-harness.ts';
import { startRawToolService } from './raw-tool-service.ts';

let databaseUrl = '';
beforeAll(async () => {
  databaseUrl = await freshDatabase(inject('postgresUrl'));
});

const started: { close(): Promise<void> | void }[] = [];
afterEach(async () => {
  for (const part of started.splice(0).reverse()) await part.close();
});

interface Replica {
  readonly gateway: McpGateway;
  readonly registryAddress: string;
  readonly mcpUrl: string;
}

/** One replica: its own HTTP port and registry, the registrations on `schema`; every replica answers to the public URL `publicUrl`. */
async function startReplica(
  platform: RunningPlatform,
  schema: string,
  publicUrl: string,
  http: Awaited<ReturnType<typeof listenOnFreePort>>,
): Promise<Replica> {
  const settings = loadMcpServerSettings({
    MCP_PUBLIC_URL: publicUrl,
    PLATFORM_API_BASE_URL: platform.issuer,
    MCP_GATEWAY_CLIENT_SECRET: devSecrets.MCP_GATEWAY_CLIENT_SECRET,
    REGISTRY_ADDRESS: '127.0.0.1:0',
    LOG_LEVEL: 'silent',
  });
  const logger = createLogger({ name: 'mcp-server', level: 'silent' });
  const registrationStore = await openPostgresRegistrationStore(databaseUrl, { logger, schema, tokenSeal: createTokenSeal(settings.clientSecret) });
  const gateway = createMcpGateway({ settings, logger, registrationStore });
  http.server.on('request', gateway.app);
  const registry = await gateway.registry.serve(settings.registryAddress);
  started.push({ close: () => http.close() }, { close: () => gateway.close() }, registry);
  return { gateway, registryAddress: registry.address, mcpUrl: `${http.url}/mcp` };
}

/** An MCP client of one replica, counting the list_changed notifications it receives. */
async function connect(replica: Replica, token: string, era: 'legacy' | 'modern') {
  const client = new Client({ name: 'replica-test', version: '1.0.0' }, era === 'modern' ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {});
  const transport = new StreamableHTTPClientTransport(new URL(replica.mcpUrl), { authProvider: { token: () => Promise.resolve(token) } });
  await client.connect(transport);
  started.push(client);
  const seen = { changes: 0 };
  client.setNotificationHandler('notifications/tools/list_changed', () => {
    seen.changes += 1;
  });
  if (era === 'modern') await client.listen({ toolsListChanged: true });
  else await until(() => replica.gateway.sessions().streams > 0, 'the session’s GET stream is open');
  const names = async () => (await client.listTools()).tools.map((tool) => tool.name);
  return { seen, names, sessionId: transport.sessionId };
}

describe('two gateway replicas on one PostgreSQL', () => {
  it('list what was registered at either, renew at the other, see expiry together, and tell their own clients each time', async () => {
    const [httpA, httpB] = [await listenOnFreePort(), await listenOnFreePort()];
    // Both answer to one public URL (as behind the balancer): one person token serves at either.
    const publicUrl = `${httpA.url}/mcp`;
    const platform = await startPlatform({ seed: seedWithToolPublishers('fleet-insights'), env: { PLATFORM_EXTRA_RESOURCES: publicUrl } });
    started.push(platform);
    const schema = freshSchema();
    const a = await startReplica(platform, schema, publicUrl, httpA);
    const b = await startReplica(platform, schema, publicUrl, httpB);
    const accessToken = await personToken(platform.issuer, 'oscar', { resource: publicUrl });
    const atA = await connect(a, accessToken, 'legacy');
    const atB = await connect(b, accessToken, 'modern');

    // A 2025-11-25 session lives in the replica that opened it: the other does not know it (the balancer pins sessions).
    const elsewhere = await sessionRequest(b.mcpUrl, accessToken, atA.sessionId ?? '');
    expect(elsewhere.status).toBe(404);
    expect(await elsewhere.json()).toMatchObject({ error: { message: 'Session not found' } });

    // Registered at A; listed at both, and announced by both.
    const service = await startToolService({
      platform,
      gatewayAddress: a.registryAddress,
      serviceName: 'shared',
      tools: [sampleTool('alpha')],
      register: false,
      app: 'fleet-insights',
    });
    started.push({ close: () => service.close(1_000) });
    const registrar = { a: registryClient(a.registryAddress), b: registryClient(b.registryAddress) };
    started.push(registrar.a, registrar.b);
    const first = await tokenOf(platform, 'fleet-insights');
    const answer = await registrar.a.register({ serviceName: 'shared', callbackAddress: service.address, ttlSeconds: 1 }, bearer(first));
    if (!answer.ok) throw new Error(answer.details);
    const { registrationId } = answer.value;
    await until(() => b.gateway.registry.catalog().byName('fleet-insights__alpha') !== undefined, 'B lists the tool registered at A');
    expect(await atA.names()).toContain('fleet-insights__alpha');
    expect(await atB.names()).toContain('fleet-insights__alpha');
    await until(() => atA.seen.changes >= 1 && atB.seen.changes >= 1, 'both replicas announced the new tool to their clients');

    // A heartbeat at B renews it, and A sends the app's new token from then on.
    const second = await tokenOf(platform, 'fleet-insights');
    expect(await registrar.b.heartbeat(registrationId, bearer(second))).toEqual({ ok: true, value: { ttlSeconds: 1 } });
    await until(() => a.gateway.registry.catalog().byName('fleet-insights__alpha')?.service.actorToken() === second, 'A holds the token of the heartbeat at B');

    // No heartbeat after: it expires by the database's time, at both, announced by both.
    const before = { a: atA.seen.changes, b: atB.seen.changes };
    await until(
      () => [a, b].every((replica) => replica.gateway.registry.catalog().byName('fleet-insights__alpha') === undefined),
      'both replicas dropped the expired registration',
      15_000,
    );
    await until(() => atA.seen.changes > before.a && atB.seen.changes > before.b, 'both replicas announced the removal');
    expect(await atB.names()).not.toContain('fleet-insights__alpha');
    expect(await registrar.a.heartbeat(registrationId, bearer(second))).toMatchObject({ ok: false, code: grpc.status.NOT_FOUND });
  }, 60_000);

  it('never let registrations racing at both replicas pass an app’s limit', async () => {
    const platform = await startPlatform({ seed: seedWithToolPublishers('fleet-insights') });
    started.push(platform);
    const schema = freshSchema();
    const logger = createLogger({ name: 'mcp-server', level: 'silent' });
    const replicas = await Promise.all(
      [0, 1].map(async () =>
        startGateway(platform.issuer, {
          maxRegistrationsPerApp: 3,
          store: await openPostgresRegistrationStore(databaseUrl, { logger, schema, tokenSeal: testTokenSeal }),
        }),
      ),
    );
    started.push(...replicas);
    const service = await startRawToolService({ tools: [{ name: 'probe', description: 'A probe.', inputSchemaJson: '{"type":"object"}' }] });
    started.push(service);
    const [atA, atB] = replicas.map((replica) => registryClient(replica.address));
    if (!atA || !atB) throw new Error('two replicas');
    started.push(atA, atB);
    const token = bearer(await tokenOf(platform, 'fleet-insights'));

    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        (i % 2 === 0 ? atA : atB).register({ serviceName: `racer-${i}`, callbackAddress: service.address, ttlSeconds: 60 }, token),
      ),
    );

    expect(answers.filter((answer) => answer.ok)).toHaveLength(3);
    expect(answers.flatMap((answer) => (answer.ok ? [] : [answer.code]))).toEqual(Array(7).fill(grpc.status.RESOURCE_EXHAUSTED));
    await until(() => replicas.every((replica) => replica.registry.services().length === 3), 'both replicas hold the three registrations');
  }, 60_000);

  it('keep each app’s token sealed in the database: the replicas use it, a reader of the table or a replica on another secret cannot', async () => {
    const platform = await startPlatform({ seed: seedWithToolPublishers('fleet-insights') });
    started.push(platform);
    const schema = freshSchema();
    const logger = createLogger({ name: 'mcp-server', level: 'silent' });
    const gateway = await startGateway(platform.issuer, {
      store: await openPostgresRegistrationStore(databaseUrl, { logger, schema, tokenSeal: testTokenSeal }),
    });
    started.push(gateway);
    const service = await startRawToolService({ tools: [{ name: 'probe', description: 'A probe.', inputSchemaJson: '{"type":"object"}' }] });
    started.push(service);
    const registrar = registryClient(gateway.address);
    started.push(registrar);
    const token = await tokenOf(platform, 'fleet-insights');
    const answer = await registrar.register({ serviceName: 'sealed', callbackAddress: service.address, ttlSeconds: 60 }, bearer(token));
    if (!answer.ok) throw new Error(answer.details);

    // What the table holds is no token, nor any part of one.
    const reader = new pg.Client({ connectionString: databaseUrl });
    await reader.connect();
    const { rows } = await reader.query<{ token: string }>(`SELECT token FROM ${schema}.registrations`);
    await reader.end();
    expect(rows).toHaveLength(1);
    const stored = rows[0]?.token ?? '';
    expect(stored).toMatch(/^v1\.[A-Za-z0-9_-]+$/);
    for (const part of token.split('.')) expect(stored).not.toContain(part);

    // A replica with the gateway's secret reads it; one with another secret refuses the row, and says why once.
    const same = await openPostgresRegistrationStore(databaseUrl, { logger, schema, tokenSeal: createTokenSeal(devSecrets.MCP_GATEWAY_CLIENT_SECRET) });
    started.push(same);
    expect((await same.live()).map((registration) => registration.token)).toEqual([token]);
    const logs = captureLogs();
    const other = await openPostgresRegistrationStore(databaseUrl, {
      logger: createLogger({ name: 'mcp-server', level: 'warn', destination: logs.destination }),
      schema,
      tokenSeal: createTokenSeal('another gateway secret'),
    });
    started.push(other);
    // A row that does not open is no registration there (never dialled), and is told once.
    expect(await other.live()).toEqual([]);
    expect(await other.live()).toEqual([]);
    expect(logs.lines.filter((line) => line.includes(`registration ${answer.value.registrationId} is refused`))).toHaveLength(1);
    expect(logs.text()).toContain('MCP_GATEWAY_CLIENT_SECRET');
    expect(logs.text()).not.toContain(token);
    expect(logs.text()).not.toContain(stored);
  }, 60_000);
});
