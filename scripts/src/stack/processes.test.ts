import { settingsFailure } from '@platform/tool-sdk/testing';
import { describe, expect, it } from 'vitest';
import { stackProcesses } from './processes.ts';

const secrets = {
  WEBHOOK_TOOLS_CLIENT_SECRET: 'tools-secret',
  WEBHOOK_INGEST_TOKEN: 'ingest-token',
  WEBHOOK_METRICS_TOKEN: 'metrics-token',
  MCP_GATEWAY_CLIENT_SECRET: 'gateway-secret',
};
const seed = { person: 'oscar', secretNames: ['WEBHOOK_TOOLS_CLIENT_SECRET', 'MCP_GATEWAY_CLIENT_SECRET'] };
const byName = (env: Record<string, string>, topology: 'embedded' | 'postgres' = 'embedded') =>
  Object.fromEntries(stackProcesses(env, secrets, topology, seed).map((p) => [p.name, p]));

describe('the stack topologies', () => {
  it('starts the platform, the API, the gateway and then the tool service, which is ready once the gateway lists tools', () => {
    const processes = stackProcesses({}, secrets, 'embedded', seed);
    expect(processes.map((p) => p.name)).toEqual(['dev-platform', 'webhook-api', 'mcp-server', 'tool-service']);
    expect(processes.at(-1)?.ready).toEqual({ kind: 'tools', mcpUrl: 'http://127.0.0.1:3000/mcp', platformUrl: 'http://127.0.0.1:4000', person: 'oscar' });
  });

  it('addresses each service as it names itself on the host it listens on, so that the gateway and the tokens agree on its URL', () => {
    const p = byName({ PLATFORM_HOST: '::1', MCP_HOST: '::1', WEBHOOK_API_HOST: '0.0.0.0' });
    expect(p['dev-platform']?.env).toMatchObject({ PLATFORM_EXTRA_RESOURCES: 'http://[::1]:3000/mcp' });
    expect(p['mcp-server']?.env).toMatchObject({ PLATFORM_API_BASE_URL: 'http://[::1]:4000', MCP_PUBLIC_URL: 'http://[::1]:3000/mcp' });
    expect(p['tool-service']?.env).toMatchObject({ WEBHOOK_API_BASE_URL: 'http://127.0.0.1:4100' });
  });

  it('moves every reference to a port with the variable that moves the port', () => {
    const p = byName({
      PLATFORM_PORT: '4400',
      MCP_PORT: '3300',
      REGISTRY_ADDRESS: '127.0.0.1:3301',
      WEBHOOK_API_PORT: '4500',
      CALLBACK_ADDRESS: '127.0.0.1:50061',
    });
    expect(p['dev-platform']?.env).toMatchObject({ PLATFORM_EXTRA_RESOURCES: 'http://127.0.0.1:3300/mcp' });
    expect(p['webhook-api']?.env).toMatchObject({ PLATFORM_API_BASE_URL: 'http://127.0.0.1:4400', WEBHOOK_INGEST_TOKEN: 'ingest-token' });
    expect(p['mcp-server']?.env).toMatchObject({
      PLATFORM_API_BASE_URL: 'http://127.0.0.1:4400',
      MCP_PUBLIC_URL: 'http://127.0.0.1:3300/mcp',
      REGISTRY_ADDRESS: '127.0.0.1:3301',
    });
    expect(p['tool-service']?.env).toMatchObject({
      PLATFORM_API_BASE_URL: 'http://127.0.0.1:4400',
      GATEWAY_ADDRESS: '127.0.0.1:3301',
      CALLBACK_ADDRESS: '127.0.0.1:50061',
      WEBHOOK_API_BASE_URL: 'http://127.0.0.1:4500',
      APP_CLIENT_ID: 'webhook-tools',
      APP_CLIENT_SECRET: 'tools-secret',
    });
    expect(p['mcp-server']?.listens).toEqual([
      { host: '127.0.0.1', port: 3300, variable: 'MCP_PORT' },
      { host: '127.0.0.1', port: 3301, variable: 'REGISTRY_ADDRESS' },
    ]);
  });

  it('allows private delivery targets outside production only, unless told otherwise', () => {
    expect(byName({})['webhook-api']?.env.WEBHOOK_ALLOW_PRIVATE_TARGETS).toBe('true');
    expect(byName({ NODE_ENV: 'production' })['webhook-api']?.env.WEBHOOK_ALLOW_PRIVATE_TARGETS).toBe('false');
    expect(byName({ WEBHOOK_ALLOW_PRIVATE_TARGETS: 'false' })['webhook-api']?.env.WEBHOOK_ALLOW_PRIVATE_TARGETS).toBe('false');
  });

  it('on PostgreSQL, runs two API processes that only queue and two deliverers, on the ports after the API port', () => {
    const p = byName({ WEBHOOK_API_PORT: '4500' }, 'postgres');
    expect(Object.keys(p)).toEqual([
      'dev-platform',
      'webhook-api-1',
      'webhook-api-2',
      'deliverer-1',
      'deliverer-2',
      'mcp-server-1',
      'mcp-server-2',
      'haproxy',
      'tool-service',
    ]);
    expect([p['webhook-api-1'], p['webhook-api-2']].map((api) => [api?.env.WEBHOOK_API_PORT, api?.env.WEBHOOK_RUN_DELIVERER])).toEqual([
      ['4500', 'false'],
      ['4502', 'false'],
    ]);
    expect([p['deliverer-1'], p['deliverer-2']].map((d) => d?.env.WEBHOOK_DELIVERER_PORT)).toEqual(['4501', '4503']);
  });

  it('on PostgreSQL, runs two gateways on MCP_REPLICA_PORT and the ports after it, behind HAProxy on MCP_PORT and REGISTRY_ADDRESS', () => {
    const p = byName({ MCP_PORT: '3300', REGISTRY_ADDRESS: '127.0.0.1:3301', MCP_REPLICA_PORT: '3400', WEBHOOK_DATA_DIR: '/tmp/stack-data' }, 'postgres');
    expect([p['mcp-server-1'], p['mcp-server-2']].map((g) => [g?.env.MCP_PORT, g?.env.REGISTRY_ADDRESS, g?.env.MCP_PUBLIC_URL])).toEqual([
      ['3400', '127.0.0.1:3401', 'http://127.0.0.1:3300/mcp'],
      ['3402', '127.0.0.1:3403', 'http://127.0.0.1:3300/mcp'],
    ]);
    const balancer = p.haproxy;
    expect(balancer?.entry).toEqual({ command: 'haproxy', args: ['-db', '-f', '/tmp/stack-data/haproxy.cfg'] });
    expect(balancer?.listens.map((l) => [l.port, l.variable])).toEqual([
      [3300, 'MCP_PORT'],
      [3301, 'REGISTRY_ADDRESS'],
    ]);
    const config = balancer?.writes?.text ?? '';
    for (const line of ['bind 127.0.0.1:3300', 'bind 127.0.0.1:3301', 'server gateway-1 127.0.0.1:3400', 'server gateway-2 127.0.0.1:3402']) {
      expect(config).toContain(line);
    }
    expect(config).toContain('server gateway-2 127.0.0.1:3403');
    expect(config).toContain('stick store-response res.hdr(mcp-session-id)');
    expect(p['tool-service']?.env.GATEWAY_ADDRESS).toBe('127.0.0.1:3301');
  });

  it("refuses a variable that cannot place a process, naming it (never its value), in the services' own words", () => {
    expect(() => stackProcesses({ MCP_PORT: 'eighty' }, secrets, 'embedded', seed)).toThrow('Invalid settings: MCP_PORT must be a port number (0 to 65535).');
    expect(() => stackProcesses({ CALLBACK_ADDRESS: 'nowhere' }, secrets, 'embedded', seed)).toThrow('Invalid settings: CALLBACK_ADDRESS must be host:port.');
    expect(() => stackProcesses({ PLATFORM_PORT: '0' }, secrets, 'embedded', seed)).toThrow('PLATFORM_PORT must not be 0');
    expect(() => stackProcesses({ WEBHOOK_API_PORT: '65534' }, secrets, 'postgres', seed)).toThrow(
      "WEBHOOK_API_PORT must leave room for start:pg's second API",
    );
    expect(() => stackProcesses({ WEBHOOK_API_PORT: '65534' }, secrets, 'embedded', seed)).not.toThrow();
  });

  it('refuses every HTTP port fetch refuses to connect to, each named with the reason in one message; gRPC addresses may use them', () => {
    const why = 'fetch refuses to connect to it (a blocked port); choose another';
    const message = settingsFailure(() =>
      stackProcesses(
        { PLATFORM_PORT: '6000', PLATFORM_AI_PORT: '6665', MCP_PORT: '6666', WEBHOOK_API_PORT: '6667', DEMO_RECEIVER_PORT: '10080' },
        secrets,
        'embedded',
        seed,
      ),
    );
    for (const [name, port] of [
      ['PLATFORM_PORT', 6000],
      ['PLATFORM_AI_PORT', 6665],
      ['MCP_PORT', 6666],
      ['WEBHOOK_API_PORT', 6667],
      ['DEMO_RECEIVER_PORT', 10080],
    ]) {
      expect(message).toContain(`${String(name)} must not be ${String(port)}: ${why}`);
    }
    expect(settingsFailure(() => stackProcesses({ WEBHOOK_DELIVERER_PORT: '6000' }, secrets, 'postgres', seed))).toContain(
      `WEBHOOK_DELIVERER_PORT must not be 6000: ${why}`,
    );
    expect(settingsFailure(() => stackProcesses({ MCP_PUBLIC_URL: 'http://127.0.0.1:6000/mcp' }, secrets, 'embedded', seed))).toContain(
      `MCP_PUBLIC_URL must not use port 6000: ${why}`,
    );
    expect(() => stackProcesses({ REGISTRY_ADDRESS: '127.0.0.1:6000', CALLBACK_ADDRESS: '127.0.0.1:6665' }, secrets, 'embedded', seed)).not.toThrow();
  });

  it('refuses a start:pg port that follows from another onto a port fetch refuses, naming the variable that places it', () => {
    expect(settingsFailure(() => stackProcesses({ WEBHOOK_API_PORT: '5998' }, secrets, 'postgres', seed))).toContain(
      "WEBHOOK_API_PORT must not put start:pg's second API on 6000: fetch refuses to connect to it (a blocked port); choose another",
    );
    expect(settingsFailure(() => stackProcesses({ WEBHOOK_API_PORT: '6662' }, secrets, 'postgres', seed))).toContain(
      "WEBHOOK_API_PORT must not put start:pg's second deliverer on 6665",
    );
    expect(settingsFailure(() => stackProcesses({ WEBHOOK_API_PORT: '4100', WEBHOOK_DELIVERER_PORT: '6663' }, secrets, 'postgres', seed))).toContain(
      "WEBHOOK_DELIVERER_PORT must not put start:pg's second deliverer on 6665",
    );
    expect(() => stackProcesses({ WEBHOOK_API_PORT: '5998' }, secrets, 'embedded', seed)).not.toThrow();
  });
});

describe('the secrets each process gets', () => {
  it("are the ones it uses: the seed's to the platform, the ingest and metrics tokens to the API, its own client secret to the gateway and the tool service", () => {
    const p = byName({});
    const secretValues = new Set(Object.values(secrets));
    const held = (name: string) =>
      Object.entries(p[name]?.env ?? {})
        .filter(([, value]) => secretValues.has(value))
        .map(([key]) => key)
        .sort();
    expect(held('dev-platform')).toEqual(['MCP_GATEWAY_CLIENT_SECRET', 'WEBHOOK_TOOLS_CLIENT_SECRET']);
    expect(held('webhook-api')).toEqual(['WEBHOOK_INGEST_TOKEN', 'WEBHOOK_METRICS_TOKEN']);
    expect(held('mcp-server')).toEqual(['MCP_GATEWAY_CLIENT_SECRET']);
    expect(held('tool-service')).toEqual(['APP_CLIENT_SECRET']);
  });

  it('gives every webhook process the generated metrics token, or none when the person opened /metrics with WEBHOOK_METRICS_PUBLIC=true', () => {
    const scaled = byName({}, 'postgres');
    for (const name of ['webhook-api-1', 'webhook-api-2', 'deliverer-1', 'deliverer-2']) {
      expect(scaled[name]?.env.WEBHOOK_METRICS_TOKEN, name).toBe('metrics-token');
    }
    // Empty overrides a token in the environment the stack was started with: a process given both would refuse to start.
    expect(byName({ WEBHOOK_METRICS_PUBLIC: 'true', WEBHOOK_METRICS_TOKEN: 'mine-0123456789abcdef' })['webhook-api']?.env.WEBHOOK_METRICS_TOKEN).toBe('');
  });

  it('adds the gateway to the resources the platform issues tokens for, keeping those given', () => {
    expect(byName({ PLATFORM_EXTRA_RESOURCES: 'https://other.example/mcp' })['dev-platform']?.env.PLATFORM_EXTRA_RESOURCES).toBe(
      'https://other.example/mcp,http://127.0.0.1:3000/mcp',
    );
  });
});
