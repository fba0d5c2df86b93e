import { createTestPki } from '@platform/devtools/test-certificates';
import { settingsFailure } from '@platform/tool-sdk/testing';
import { describe, expect, it } from 'vitest';
import { loadDevPlatformProcessSettings, loadDevPlatformSettings } from './settings.ts';

describe('loadDevPlatformSettings', () => {
  it('derives the issuer and the AI address from the ports by default', () => {
    expect(loadDevPlatformSettings({})).toMatchObject({ issuer: 'http://127.0.0.1:4000', aiBaseUrl: 'http://127.0.0.1:4001', tokenExchangeEnabled: true });
    expect(loadDevPlatformSettings({ PLATFORM_PORT: '4500', PLATFORM_TOKEN_EXCHANGE: 'false' })).toMatchObject({
      issuer: 'http://127.0.0.1:4500',
      tokenExchangeEnabled: false,
    });
  });

  it('refuses a port fetch refuses to connect to, for the platform and its AI service', () => {
    expect(settingsFailure(() => loadDevPlatformSettings({ PLATFORM_PORT: '6000', PLATFORM_AI_PORT: '10080' }))).toMatch(
      /PLATFORM_PORT must not be 6000: fetch refuses to connect to it.*PLATFORM_AI_PORT must not be 10080/s,
    );
  });

  it('derives them from the host it listens on, as this machine reaches it', () => {
    expect(loadDevPlatformSettings({ PLATFORM_HOST: '::1' })).toMatchObject({ issuer: 'http://[::1]:4000', aiBaseUrl: 'http://[::1]:4001' });
    expect(loadDevPlatformSettings({ PLATFORM_HOST: '0.0.0.0' })).toMatchObject({ issuer: 'http://127.0.0.1:4000' });
  });

  it('takes loopback client ids (client ID metadata documents on this machine) unless NODE_ENV=production', () => {
    expect(loadDevPlatformSettings({})).toMatchObject({ allowLoopbackClientIds: true });
    expect(loadDevPlatformSettings({ NODE_ENV: 'development' })).toMatchObject({ allowLoopbackClientIds: true });
    expect(loadDevPlatformSettings({ NODE_ENV: 'production' })).toMatchObject({ allowLoopbackClientIds: false });
  });

  it('bounds client registration by default: 1000 clients, none used within a week dropped, 20 a minute per source', () => {
    expect(loadDevPlatformSettings({})).toMatchObject({ maxClients: 1000, clientEvictUnusedSeconds: 604_800, registrationsPerMinute: 20 });
    expect(settingsFailure(() => loadDevPlatformSettings({ PLATFORM_REGISTRATIONS_PER_MINUTE: '0' }))).toContain(
      'PLATFORM_REGISTRATIONS_PER_MINUTE must be a whole number of registrations',
    );
  });

  it('names every bad variable in one message', () => {
    const message = settingsFailure(() =>
      loadDevPlatformSettings({ PLATFORM_PORT: '-3', PLATFORM_TOKEN_EXCHANGE: 'maybe', PLATFORM_ACCESS_TOKEN_TTL_SECONDS: '0' }),
    );
    expect(message).toContain('PLATFORM_PORT must be a port number');
    expect(message).toContain('PLATFORM_TOKEN_EXCHANGE must be true or false');
    expect(message).toContain('PLATFORM_ACCESS_TOKEN_TTL_SECONDS must be a whole number of seconds, 1 or more');
  });

  it('reports a bad extra resource and problems across variables together with the other bad variables', () => {
    const message = settingsFailure(() =>
      loadDevPlatformSettings({
        PLATFORM_EXTRA_RESOURCES: 'http://127.0.0.1:3000/mcp, not a url',
        PLATFORM_PORT: '4000',
        PLATFORM_AI_PORT: '4000',
        LOG_LEVEL: 'chatty',
      }),
    );
    expect(message).toContain('PLATFORM_EXTRA_RESOURCES must be an absolute http or https URL');
    expect(message).toContain('PLATFORM_AI_PORT must differ from PLATFORM_PORT');
    expect(message).toContain('LOG_LEVEL must be one of');
    expect(settingsFailure(() => loadDevPlatformSettings({ PLATFORM_EXTRA_RESOURCES: 'http://127.0.0.1:4000' }))).toContain(
      'PLATFORM_EXTRA_RESOURCES must not name the platform API itself',
    );
  });

  it('refuses a plain-http issuer off loopback, as every service of the stack does', () => {
    expect(settingsFailure(() => loadDevPlatformSettings({ PLATFORM_ISSUER: 'http://platform.example' }))).toContain('PLATFORM_ISSUER must use https');
  });

  it('serves the issuer and API over TLS too with PLATFORM_TLS_PORT and a certificate and key; the issuer stays the identity', async () => {
    const pki = await createTestPki();
    const tls = { PLATFORM_TLS_PORT: '4443', HTTP_TLS_CERT_FILE: pki.server.certFile, HTTP_TLS_KEY_FILE: pki.server.keyFile };
    expect(loadDevPlatformSettings({ PLATFORM_HOST: '0.0.0.0', PLATFORM_ISSUER: 'http://127.0.0.1:4000', ...tls })).toMatchObject({
      issuer: 'http://127.0.0.1:4000',
      tls: { port: 4443, certFile: pki.server.certFile, keyFile: pki.server.keyFile },
    });
    expect(loadDevPlatformSettings({}).tls).toBeUndefined();
    expect(settingsFailure(() => loadDevPlatformSettings({ PLATFORM_TLS_PORT: '4443' }))).toContain('HTTP_TLS_CERT_FILE is required with PLATFORM_TLS_PORT');
    expect(settingsFailure(() => loadDevPlatformSettings({ ...tls, PLATFORM_TLS_PORT: '4000' }))).toContain(
      'PLATFORM_TLS_PORT must differ from PLATFORM_PORT and PLATFORM_AI_PORT',
    );
    expect(settingsFailure(() => loadDevPlatformSettings({ ...tls, HTTP_TLS_KEY_FILE: pki.client.keyFile }))).toContain(
      `HTTP_TLS_KEY_FILE ${pki.client.keyFile} is not the key of ${pki.server.certFile}`,
    );
  });
});

describe("the dev platform process's settings", () => {
  it('reads the settings and the /metrics access in one parse', () => {
    const read = loadDevPlatformProcessSettings({ PLATFORM_METRICS_TOKEN: 'a-long-enough-metrics-token' });
    expect(read.settings.port).toBe(4000);
    expect(read.metrics.access).toEqual({ token: 'a-long-enough-metrics-token' });
  });

  it('names bad variables of both groups (service, metrics) in one message', () => {
    const message = settingsFailure(() => loadDevPlatformProcessSettings({ PLATFORM_PORT: 'x', PLATFORM_METRICS_TOKEN: 'short' }));
    expect(message).toContain('PLATFORM_PORT must be a port number');
    expect(message).toContain('PLATFORM_METRICS_TOKEN must be at least 16 characters');
    expect(message.match(/Invalid settings/g)).toHaveLength(1);
  });
});
