import { describe, expect, it } from 'vitest';
import { loadPlatformAppSettings, loadPlatformMcpSettings, loadToolServiceSettingsWith } from './platform-settings.ts';
import { setting } from './vocabulary.ts';
import { settingsFailure } from '../testing/index.ts';

const minimal = { APP_CLIENT_ID: 'webhook-tools', APP_CLIENT_SECRET: 'a-secret-from-the-environment' };

describe('loadPlatformAppSettings', () => {
  it('applies the documented defaults, with a 60 s caller cache', () => {
    const settings = loadPlatformAppSettings(minimal);
    expect(settings).toEqual({
      apiBaseUrl: 'http://127.0.0.1:4000',
      issuerUrl: 'http://127.0.0.1:4000',
      platformAiBaseUrl: 'http://127.0.0.1:4001',
      appClientId: 'webhook-tools',
      appClientSecret: 'a-secret-from-the-environment',
      meCacheTtlSeconds: 60,
      httpTimeoutMs: 10_000,
    });
    expect(Object.isFrozen(settings)).toBe(true);
  });

  it('accepts 0 for ME_CACHE_TTL_SECONDS, meaning a check on every call', () => {
    expect(loadPlatformAppSettings({ ...minimal, ME_CACHE_TTL_SECONDS: '0' }).meCacheTtlSeconds).toBe(0);
  });

  it.each(['-1', 'sixty', '1.5', '60s', '1e3'])('refuses ME_CACHE_TTL_SECONDS=%j with a message naming it', (value) => {
    const message = settingsFailure(() => loadPlatformAppSettings({ ...minimal, ME_CACHE_TTL_SECONDS: value }));
    expect(message).toMatch(/ME_CACHE_TTL_SECONDS must be a whole number of seconds, 0 or more/);
  });

  it('treats a blank ME_CACHE_TTL_SECONDS as unset', () => {
    expect(loadPlatformAppSettings({ ...minimal, ME_CACHE_TTL_SECONDS: '' }).meCacheTtlSeconds).toBe(60);
  });

  it('requires the client secret from the environment and has no default for it', () => {
    const message = settingsFailure(() => loadPlatformAppSettings({ APP_CLIENT_ID: 'webhook-tools' }));
    expect(message).toContain('APP_CLIENT_SECRET is required');
  });

  it('names every bad variable in one message and never echoes a secret', () => {
    const message = settingsFailure(() =>
      loadPlatformAppSettings({ APP_CLIENT_SECRET: 'x', PLATFORM_API_BASE_URL: 'ftp://platform', ME_CACHE_TTL_SECONDS: '-5' }),
    );
    expect(message).toContain('APP_CLIENT_ID is required');
    expect(message).toContain('PLATFORM_API_BASE_URL must be an absolute http or https URL');
    expect(message).toContain('ME_CACHE_TTL_SECONDS');
    const withSecret = settingsFailure(() => loadPlatformAppSettings({ ...minimal, APP_CLIENT_ID: '', APP_CLIENT_SECRET: 'hunter2-secret' }));
    expect(withSecret).not.toContain('hunter2-secret');
  });

  it('allows plain http only on loopback', () => {
    expect(settingsFailure(() => loadPlatformAppSettings({ ...minimal, PLATFORM_API_BASE_URL: 'http://platform.example.com' }))).toContain(
      'PLATFORM_API_BASE_URL must use https',
    );
    expect(loadPlatformAppSettings({ ...minimal, PLATFORM_API_BASE_URL: 'https://platform.example.com/' }).apiBaseUrl).toBe('https://platform.example.com');
    expect(loadPlatformAppSettings({ ...minimal, PLATFORM_API_BASE_URL: 'http://localhost:4000' }).apiBaseUrl).toBe('http://localhost:4000');
  });

  it('refuses a base address carrying credentials or a query', () => {
    expect(settingsFailure(() => loadPlatformAppSettings({ ...minimal, PLATFORM_API_BASE_URL: 'https://u:p@platform.example.com' }))).toContain(
      'must not carry credentials',
    );
  });

  it('reads PLATFORM_BACKCHANNEL_URL, where requests for the platform go, apart from the addresses that identify it', () => {
    const settings = loadPlatformAppSettings({ ...minimal, PLATFORM_BACKCHANNEL_URL: 'https://dev-platform:4443/' });
    expect([settings.apiBaseUrl, settings.issuerUrl, settings.backChannelUrl]).toEqual([
      'http://127.0.0.1:4000',
      'http://127.0.0.1:4000',
      'https://dev-platform:4443',
    ]);
    expect(loadPlatformAppSettings(minimal)).not.toHaveProperty('backChannelUrl');
  });

  it('refuses a back channel in plain http off loopback, or with a path', () => {
    const message = settingsFailure(() => loadPlatformAppSettings({ ...minimal, PLATFORM_BACKCHANNEL_URL: 'http://dev-platform:4000' }));
    expect(message).toContain('PLATFORM_BACKCHANNEL_URL must use https');
    expect(settingsFailure(() => loadPlatformAppSettings({ ...minimal, PLATFORM_BACKCHANNEL_URL: 'https://dev-platform:4443/api' }))).toContain(
      'PLATFORM_BACKCHANNEL_URL must be an origin (scheme, host and port), without a path',
    );
  });

  it('uses a separate issuer when PLATFORM_ISSUER_URL is set', () => {
    expect(loadPlatformAppSettings({ ...minimal, PLATFORM_ISSUER_URL: 'https://login.example.com' }).issuerUrl).toBe('https://login.example.com');
  });
});

describe('loadPlatformMcpSettings', () => {
  it('extends the app settings with the tool path', () => {
    const settings = loadPlatformMcpSettings({ ...minimal, SERVICE_NAME: 'webhook-tools' });
    expect(settings).toMatchObject({
      appClientId: 'webhook-tools',
      meCacheTtlSeconds: 60,
      gatewayAddress: '127.0.0.1:3001',
      callbackAddress: '127.0.0.1:50051',
      serviceName: 'webhook-tools',
      ttlSeconds: 30,
    });
  });

  it('names a bad address and a missing service name', () => {
    const message = settingsFailure(() => loadPlatformMcpSettings({ ...minimal, GATEWAY_ADDRESS: 'nowhere', TOOL_REGISTRATION_TTL_SECONDS: '0' }));
    expect(message).toContain('GATEWAY_ADDRESS must be host:port');
    expect(message).toContain('SERVICE_NAME is required');
    expect(message).toContain('TOOL_REGISTRATION_TTL_SECONDS must be a whole number of seconds, from 1 to 86400');
  });

  it('takes a service name the gateway will register: at most 64 characters', () => {
    expect(loadPlatformMcpSettings({ ...minimal, SERVICE_NAME: 'a'.repeat(64) }).serviceName).toHaveLength(64);
    expect(() => loadPlatformMcpSettings({ ...minimal, SERVICE_NAME: 'a'.repeat(65) })).toThrow('SERVICE_NAME must be 1 to 64 lower-case letters');
  });

  it('keeps gRPC, which carries tokens without TLS, on loopback unless the network is declared trusted', () => {
    const tool = { ...minimal, SERVICE_NAME: 'webhook-tools' };
    const message = settingsFailure(() => loadPlatformMcpSettings({ ...tool, GATEWAY_ADDRESS: 'gateway.internal:3001', CALLBACK_ADDRESS: '10.0.0.7:50051' }));
    expect(message).toContain('GATEWAY_ADDRESS must be a loopback address: gRPC carries tokens without TLS');
    expect(message).toContain('CALLBACK_ADDRESS must be a loopback address');
    expect(loadPlatformMcpSettings({ ...tool, CALLBACK_ADDRESS: 'localhost:50051', GATEWAY_ADDRESS: '[::1]:3001' }).gatewayAddress).toBe('[::1]:3001');
    // Not an address at all, so a resolver would look it up by name.
    expect(settingsFailure(() => loadPlatformMcpSettings({ ...tool, GATEWAY_ADDRESS: '127.999.999.999:3001' }))).toContain(
      'GATEWAY_ADDRESS must be a loopback address',
    );
    const trusted = loadPlatformMcpSettings({
      ...tool,
      GATEWAY_ADDRESS: 'mcp-server:3001',
      CALLBACK_ADDRESS: 'tool-service:50051',
      GRPC_PLAINTEXT_OFF_LOOPBACK: 'true',
    });
    expect(trusted).toMatchObject({ gatewayAddress: 'mcp-server:3001', callbackAddress: 'tool-service:50051' });
  });
});

it('bounds the timings so that timers can hold them', () => {
  const tool = { ...minimal, SERVICE_NAME: 'webhook-tools' };
  const message = settingsFailure(() => loadPlatformMcpSettings({ ...tool, PLATFORM_HTTP_TIMEOUT_MS: '5000000000', TOOL_REGISTRATION_TTL_SECONDS: '7000000' }));
  expect(message).toContain('PLATFORM_HTTP_TIMEOUT_MS must be a whole number of milliseconds, from 1 to 600000');
  expect(message).toContain('TOOL_REGISTRATION_TTL_SECONDS must be a whole number of seconds, from 1 to 86400');
});

describe('loadToolServiceSettingsWith', () => {
  const own = { REPORTS_URL: setting.baseUrl.default('http://127.0.0.1:4200'), BATCH_SIZE: setting.wholeNumber(1, 'points').default(100) };

  it("reads a service's own variables beside the SDK's, with the service's defaults for unset or empty ones", () => {
    const { settings, own: values } = loadToolServiceSettingsWith(
      { APP_CLIENT_SECRET: 's', SERVICE_NAME: '', BATCH_SIZE: '7' },
      { own, defaults: { APP_CLIENT_ID: 'reports', SERVICE_NAME: 'report-tools' } },
    );
    expect(settings).toMatchObject({ appClientId: 'reports', serviceName: 'report-tools', appClientSecret: 's' });
    expect(values).toEqual({ REPORTS_URL: 'http://127.0.0.1:4200', BATCH_SIZE: 7 });
    expect(Object.isFrozen(values) && Object.isFrozen(settings)).toBe(true);
  });

  it("names the SDK's and the service's bad variables in one message", () => {
    const message = settingsFailure(() => loadToolServiceSettingsWith({ APP_CLIENT_ID: 'reports', BATCH_SIZE: '0', REPORTS_URL: 'ftp://x' }, { own }));
    expect(message).toContain('APP_CLIENT_SECRET is required');
    expect(message).toContain('SERVICE_NAME is required');
    expect(message).toContain('BATCH_SIZE must be a whole number of points, 1 or more');
    expect(message).toContain('REPORTS_URL');
  });
});
