import { isPlatformError } from '@platform/tool-sdk';
import { describe, expect, it } from 'vitest';
import { loadMcpServerProcessSettings, loadMcpServerSettings } from './settings.ts';

const secret = { MCP_GATEWAY_CLIENT_SECRET: 'gateway-secret' };

function failure(env: Record<string, string>): string {
  try {
    loadMcpServerSettings(env);
  } catch (error) {
    if (isPlatformError(error, 'SETTINGS_INVALID')) return error.message;
    throw error;
  }
  throw new Error('the settings were accepted');
}

describe('the MCP gateway settings', () => {
  it('defaults to the documented loopback addresses', () => {
    const settings = loadMcpServerSettings(secret);
    expect(settings).toMatchObject({
      host: '127.0.0.1',
      port: 3000,
      publicUrl: 'http://127.0.0.1:3000/mcp',
      apiBaseUrl: 'http://127.0.0.1:4000',
      issuerUrl: 'http://127.0.0.1:4000',
      clientId: 'mcp-gateway',
      registryAddress: '127.0.0.1:3001',
      meCacheTtlSeconds: 60,
      toolCallTimeoutMs: 30_000,
    });
    expect(settings.allowedHosts).toEqual(expect.arrayContaining(['127.0.0.1', 'localhost', '[::1]']));
    expect(Object.isFrozen(settings)).toBe(true);
  });

  it('refuses an MCP port fetch refuses to connect to', () => {
    expect(() => loadMcpServerSettings({ ...secret, MCP_PORT: '6667' })).toThrow(/MCP_PORT must not be 6667: fetch refuses to connect to it/);
  });

  it('requires the client secret and gives it no default', () => {
    expect(failure({})).toContain('MCP_GATEWAY_CLIENT_SECRET is required');
  });

  it('names every bad variable in one message, without echoing values', () => {
    const message = failure({ ...secret, MCP_PORT: '70000', TOOL_CALL_TIMEOUT_MS: 'soon', PLATFORM_API_BASE_URL: 'http://platform.example.com' });
    expect(message).toContain('MCP_PORT');
    expect(message).toContain('TOOL_CALL_TIMEOUT_MS');
    expect(message).toContain('PLATFORM_API_BASE_URL must use https');
    expect(message).not.toContain('gateway-secret');
  });

  it('keeps the registry on loopback unless plaintext gRPC off loopback is allowed', () => {
    expect(failure({ ...secret, REGISTRY_ADDRESS: '10.0.0.5:3001' })).toContain('REGISTRY_ADDRESS must be a loopback address');
    expect(loadMcpServerSettings({ ...secret, REGISTRY_ADDRESS: '10.0.0.5:3001', GRPC_PLAINTEXT_OFF_LOOPBACK: 'true' }).registryAddress).toBe('10.0.0.5:3001');
  });

  it('names a server bound to every interface by its loopback address, which tokens are issued for by default', () => {
    expect(loadMcpServerSettings({ ...secret, MCP_HOST: '0.0.0.0' }).publicUrl).toBe('http://127.0.0.1:3000/mcp');
    expect(loadMcpServerSettings({ ...secret, MCP_HOST: '::' }).publicUrl).toBe('http://[::1]:3000/mcp');
  });

  it('takes a public URL with its path and answers to its host', () => {
    const settings = loadMcpServerSettings({ ...secret, MCP_HOST: '0.0.0.0', MCP_PUBLIC_URL: 'https://mcp.example.com/mcp' });
    expect(settings.publicUrl).toBe('https://mcp.example.com/mcp');
    expect(settings.allowedHosts).toEqual(['mcp.example.com']);
    expect(settings.allowedOrigins).toContain('mcp.example.com');
    expect(failure({ ...secret, MCP_PUBLIC_URL: 'https://mcp.example.com' })).toContain('MCP_PUBLIC_URL must name the MCP endpoint with its path');
  });

  it('keeps plain tool names for webhook-tools unless the operator pins another app, or none', () => {
    expect(loadMcpServerSettings(secret).registryPlainNamesApp).toBe('webhook-tools');
    expect(loadMcpServerSettings({ ...secret, REGISTRY_PLAIN_NAMES_APP: 'reports' }).registryPlainNamesApp).toBe('reports');
    expect(loadMcpServerSettings({ ...secret, REGISTRY_PLAIN_NAMES_APP: 'none' }).registryPlainNamesApp).toBeUndefined();
    expect(failure({ ...secret, REGISTRY_PLAIN_NAMES_APP: 'Reports_App' })).toContain('REGISTRY_PLAIN_NAMES_APP must be an app key');
  });

  it('lets every tool publisher register unless the operator lists app keys, and names a malformed list', () => {
    expect(loadMcpServerSettings(secret).registryAllowedApps).toBeUndefined();
    expect(loadMcpServerSettings({ ...secret, REGISTRY_ALLOWED_APPS: 'webhook-tools, reports ' }).registryAllowedApps).toEqual(['webhook-tools', 'reports']);
    expect(failure({ ...secret, REGISTRY_ALLOWED_APPS: 'Webhook Tools' })).toContain('REGISTRY_ALLOWED_APPS must be a comma-separated list of app keys');
  });

  it('connects to MCP_DATABASE_URL when set (the gateway’s own role), else to DATABASE_URL, and to none without either', () => {
    const shared = 'postgres://webhook_api:secret-one@127.0.0.1:5433/webhooks';
    const own = 'postgres://mcp_gateway:secret-two@127.0.0.1:5433/webhooks';
    expect(loadMcpServerSettings(secret).databaseUrl).toBeUndefined();
    expect(loadMcpServerSettings({ ...secret, DATABASE_URL: shared }).databaseUrl).toBe(shared);
    expect(loadMcpServerSettings({ ...secret, DATABASE_URL: shared, MCP_DATABASE_URL: own }).databaseUrl).toBe(own);
    const message = failure({ ...secret, MCP_DATABASE_URL: 'mysql://mcp_gateway:secret-two@db/webhooks' });
    expect(message).toContain('MCP_DATABASE_URL');
    expect(message).not.toContain('secret-two');
  });

  it('lets tool services be reached on loopback only unless the operator lists networks, and names a block that is none', () => {
    expect(loadMcpServerSettings(secret).registryCallbackNetworks).toEqual(['127.0.0.0/8', '::1/128']);
    expect(loadMcpServerSettings({ ...secret, REGISTRY_CALLBACK_NETWORKS: '10.20.0.0/16, fd00::/8 ' }).registryCallbackNetworks).toEqual([
      '10.20.0.0/16',
      'fd00::/8',
    ]);
    expect(failure({ ...secret, REGISTRY_CALLBACK_NETWORKS: '10.0.0.0/8,tools.internal' })).toContain(
      'REGISTRY_CALLBACK_NETWORKS must be a comma-separated list of CIDR blocks: "tools.internal" is not a CIDR block',
    );
    expect(failure({ ...secret, REGISTRY_CALLBACK_NETWORKS: ' , ' })).toContain('REGISTRY_CALLBACK_NETWORKS must list at least one network');
  });

  it('bounds the catalog by default, and names a limit set above the one that holds it', () => {
    expect(loadMcpServerSettings(secret)).toMatchObject({
      registryMaxRegistrations: 1000,
      registryMaxRegistrationsPerApp: 20,
      catalogLimits: { maxToolsPerService: 128, maxToolBytes: 65_536, maxServiceBytes: 524_288, maxAppBytes: 1_048_576, maxCatalogBytes: 4_194_304 },
    });
    const message = failure({ ...secret, REGISTRY_MAX_TOOL_BYTES: '600000', REGISTRY_MAX_APP_BYTES: '8388608', REGISTRY_MAX_TOOLS_PER_SERVICE: '0' });
    expect(message).toContain('REGISTRY_MAX_TOOL_BYTES must not be more than REGISTRY_MAX_SERVICE_BYTES');
    expect(message).toContain('REGISTRY_MAX_APP_BYTES must not be more than REGISTRY_MAX_CATALOG_BYTES');
    expect(message).toContain('REGISTRY_MAX_TOOLS_PER_SERVICE must be a whole number of tools, from 1 to 256');
  });

  it('passes tool results of up to 1 MiB by default', () => {
    expect(loadMcpServerSettings(secret).maxToolResultBytes).toBe(1_048_576);
    expect(failure({ ...secret, MCP_MAX_TOOL_RESULT_BYTES: '10' })).toContain(
      'MCP_MAX_TOOL_RESULT_BYTES must be a whole number of bytes, from 1024 to 67108864',
    );
  });

  it('bounds streams per person and in all, and re-checks their tokens every minute by default', () => {
    expect(loadMcpServerSettings(secret)).toMatchObject({ maxStreams: 1000, maxStreamsPerCaller: 10, streamRecheckSeconds: 60 });
    expect(failure({ ...secret, MCP_MAX_STREAMS_PER_CALLER: '0' })).toContain('MCP_MAX_STREAMS_PER_CALLER must be a whole number of streams');
  });
});

describe("the gateway process's settings", () => {
  it('reads the settings, the /metrics access and the tracing in one parse', () => {
    const read = loadMcpServerProcessSettings({ ...secret, MCP_METRICS_PUBLIC: 'true', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' });
    expect(read.settings.port).toBe(3000);
    expect(read.metrics.access).toBe('public');
    expect(read.telemetry).toMatchObject({ enabled: true, serviceName: 'mcp-server' });
  });

  it('names bad variables of every group (service, metrics, telemetry) in one message', () => {
    let message = '';
    try {
      loadMcpServerProcessSettings({ ...secret, MCP_PORT: 'x', MCP_METRICS_TOKEN: 'short', OTEL_TRACES_SAMPLER: 'sometimes' });
    } catch (error) {
      if (isPlatformError(error, 'SETTINGS_INVALID')) message = error.message;
    }
    expect(message).toContain('MCP_PORT must be a port number');
    expect(message).toContain('MCP_METRICS_TOKEN must be at least 16 characters');
    expect(message).toContain('OTEL_TRACES_SAMPLER must be one of');
    expect(message.match(/Invalid settings/g)).toHaveLength(1);
  });
});
