import { createTestPki } from '@platform/devtools/test-certificates';
import { settingsFailure } from '@platform/tool-sdk/testing';
import { describe, expect, it } from 'vitest';
import { loadDelivererProcessSettings, loadDelivererSettings, loadWebhookApiProcessSettings, loadWebhookApiSettings } from './settings.ts';

/** What the API cannot start without. */
const required = { WEBHOOK_INGEST_TOKEN: 'a-test-ingest-token', WEBHOOK_METRICS_TOKEN: 'a-test-metrics-token' };

describe('loadWebhookApiSettings', () => {
  it('serves over TLS too with WEBHOOK_API_TLS_PORT and a certificate and key, and asks the platform through PLATFORM_BACKCHANNEL_URL; the audience stays PLATFORM_API_BASE_URL', async () => {
    const pki = await createTestPki();
    const env = {
      ...required,
      WEBHOOK_API_TLS_PORT: '4443',
      HTTP_TLS_CERT_FILE: pki.server.certFile,
      HTTP_TLS_KEY_FILE: pki.server.keyFile,
      PLATFORM_BACKCHANNEL_URL: 'https://dev-platform:4443',
    };
    expect(loadWebhookApiSettings(env)).toMatchObject({
      platformApiBaseUrl: 'http://127.0.0.1:4000',
      platformBackChannelUrl: 'https://dev-platform:4443',
      tls: { port: 4443, certFile: pki.server.certFile, keyFile: pki.server.keyFile },
    });
    expect(loadWebhookApiSettings(required).tls).toBeUndefined();
    expect(settingsFailure(() => loadWebhookApiSettings({ ...env, WEBHOOK_API_TLS_PORT: '4100' }))).toContain(
      'WEBHOOK_API_TLS_PORT must differ from WEBHOOK_API_PORT',
    );
    expect(settingsFailure(() => loadWebhookApiSettings({ ...required, HTTP_TLS_CERT_FILE: pki.server.certFile }))).toContain(
      'HTTP_TLS_CERT_FILE needs WEBHOOK_API_TLS_PORT, HTTP_TLS_CERT_FILE and HTTP_TLS_KEY_FILE together',
    );
    expect(settingsFailure(() => loadWebhookApiSettings({ ...required, PLATFORM_BACKCHANNEL_URL: 'http://dev-platform:4000' }))).toContain(
      'PLATFORM_BACKCHANNEL_URL must use https',
    );
  });

  it('defaults to SQLite under ./data with a 60 s caller cache whose permissions are at most 2 s old', () => {
    expect(loadWebhookApiSettings(required)).toMatchObject({
      port: 4100,
      databaseUrl: undefined,
      meCacheTtlSeconds: 60,
      permissionsMaxAgeMs: 2_000,
      platformApiBaseUrl: 'http://127.0.0.1:4000',
    });
  });

  it('switches the webhook feature off with WEBHOOK_FEATURE_ENABLED=false, in the API and a deliverer alone; on by default', () => {
    expect(loadWebhookApiSettings(required).featureEnabled).toBe(true);
    expect(loadWebhookApiSettings({ ...required, WEBHOOK_FEATURE_ENABLED: 'false' }).featureEnabled).toBe(false);
    expect(loadDelivererSettings({ ...required, WEBHOOK_FEATURE_ENABLED: 'false' }).featureEnabled).toBe(false);
    expect(settingsFailure(() => loadWebhookApiSettings({ ...required, WEBHOOK_FEATURE_ENABLED: 'off' }))).toContain(
      'WEBHOOK_FEATURE_ENABLED must be true or false',
    );
  });

  it('reads when an endpoint is disabled: WEBHOOK_DISABLE_AFTER (24h) and WEBHOOK_DISABLE_MIN_ATTEMPTS (5)', () => {
    expect(loadWebhookApiSettings(required).delivery).toMatchObject({ disableAfterMs: 86_400_000, disableMinAttempts: 5 });
    expect(loadDelivererSettings({ ...required, WEBHOOK_DISABLE_AFTER: '3d', WEBHOOK_DISABLE_MIN_ATTEMPTS: '10' }).delivery).toMatchObject({
      disableAfterMs: 3 * 86_400_000,
      disableMinAttempts: 10,
    });
    expect(settingsFailure(() => loadWebhookApiSettings({ ...required, WEBHOOK_DISABLE_AFTER: 'never' }))).toContain(
      'WEBHOOK_DISABLE_AFTER must be a duration',
    );
    expect(settingsFailure(() => loadWebhookApiSettings({ ...required, WEBHOOK_DISABLE_MIN_ATTEMPTS: '0' }))).toContain('WEBHOOK_DISABLE_MIN_ATTEMPTS');
  });

  it('reads the permissions max age as a duration of 100 ms or more', () => {
    expect(loadWebhookApiSettings({ ...required, WEBHOOK_PERMISSIONS_MAX_AGE: '500ms' }).permissionsMaxAgeMs).toBe(500);
    for (const value of ['0s', '50ms', 'soon']) {
      expect(settingsFailure(() => loadWebhookApiSettings({ ...required, WEBHOOK_PERMISSIONS_MAX_AGE: value }))).toContain(
        'WEBHOOK_PERMISSIONS_MAX_AGE must be a duration of at least 100 ms',
      );
    }
  });

  it('refuses an HTTP port fetch refuses to connect to, for the API and the deliverer alone, and a platform address on one', () => {
    const why = 'fetch refuses to connect to it (a blocked port); choose another';
    const api = settingsFailure(() => loadWebhookApiSettings({ ...required, WEBHOOK_API_PORT: '6000', PLATFORM_API_BASE_URL: 'http://127.0.0.1:6665' }));
    expect(api).toContain(`WEBHOOK_API_PORT must not be 6000: ${why}`);
    expect(api).toContain(`PLATFORM_API_BASE_URL must not use port 6665: ${why}`);
    expect(settingsFailure(() => loadDelivererSettings({ ...required, WEBHOOK_DELIVERER_PORT: '10080' }))).toContain(
      `WEBHOOK_DELIVERER_PORT must not be 10080: ${why}`,
    );
  });

  it('names every bad variable and never echoes a secret value', () => {
    const message = settingsFailure(() =>
      loadWebhookApiSettings({ WEBHOOK_API_PORT: 'x', DATABASE_URL: 'mysql://u:secret-password@h/db', ME_CACHE_TTL_SECONDS: '-1' }),
    );
    expect(message).toContain('WEBHOOK_API_PORT');
    expect(message).toContain('DATABASE_URL must be a postgres:// URL');
    expect(message).toContain('ME_CACHE_TTL_SECONDS');
    expect(message).not.toContain('secret-password');
    expect(message).toContain('WEBHOOK_INGEST_TOKEN is required');
  });

  it('reads the delivery settings: durations with units, the retry schedule, and no private targets in production', () => {
    const settings = loadWebhookApiSettings({
      ...required,
      WEBHOOK_RETRY_SCHEDULE: '50ms,1s,2m',
      WEBHOOK_LEASE: '2s',
      WEBHOOK_BATCH_LINGER: '0ms',
    });
    expect(settings.delivery).toMatchObject({ retrySchedule: [50, 1000, 120_000], leaseMs: 2000, batchLingerMs: 0, connectTimeoutMs: 10_000 });
    expect(loadWebhookApiSettings(required).delivery).toMatchObject({
      retrySchedule: [5000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000],
      requestTimeoutMs: 30_000,
      allowPrivateTargets: false,
    });
    expect(settingsFailure(() => loadWebhookApiSettings({ ...required, WEBHOOK_RETRY_SCHEDULE: '5s,soon' }))).toContain(
      'WEBHOOK_RETRY_SCHEDULE must be 1 to 30 durations',
    );
    expect(() => loadWebhookApiSettings({ ...required, NODE_ENV: 'production', WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' })).toThrow(
      /WEBHOOK_ALLOW_PRIVATE_TARGETS must not be true when NODE_ENV=production/,
    );
  });

  it('asks for a metrics token unless /metrics is opened explicitly, and names both ways in one line when neither is chosen', () => {
    for (const load of [loadWebhookApiSettings, loadDelivererSettings]) {
      const neither = settingsFailure(() => load({ WEBHOOK_INGEST_TOKEN: 'a-test-ingest-token' }));
      expect(neither).toMatch(/^Invalid settings: WEBHOOK_METRICS_TOKEN is required: .*WEBHOOK_METRICS_PUBLIC=true/);
      expect(neither).not.toContain('\n');
      expect(load(required).metricsAccess).toEqual({ token: 'a-test-metrics-token' });
      expect(load({ WEBHOOK_INGEST_TOKEN: 'a-test-ingest-token', WEBHOOK_METRICS_PUBLIC: 'true' }).metricsAccess).toBe('public');
      const both = settingsFailure(() => load({ ...required, WEBHOOK_METRICS_PUBLIC: 'true' }));
      expect(both).toContain('WEBHOOK_METRICS_PUBLIC must not be true when WEBHOOK_METRICS_TOKEN is set');
      expect(both).not.toContain('a-test-metrics-token');
    }
  });
});

describe("the API's and a deliverer's process settings", () => {
  it('read the settings and the tracing in one parse', () => {
    const api = loadWebhookApiProcessSettings({ ...required, OTEL_SERVICE_NAME: 'webhooks' });
    expect([api.settings.port, api.telemetry.serviceName, api.telemetry.enabled]).toEqual([4100, 'webhooks', false]);
    expect(loadDelivererProcessSettings(required).telemetry.serviceName).toBe('webhook-deliverer');
  });

  it('name bad variables of every group (service, metrics, telemetry) in one message', () => {
    const bad = { WEBHOOK_INGEST_TOKEN: 'a-test-ingest-token', WEBHOOK_METRICS_TOKEN: 'short', OTEL_TRACES_SAMPLER_ARG: '2' };
    const api = settingsFailure(() => loadWebhookApiProcessSettings({ ...bad, WEBHOOK_API_PORT: 'x' }));
    const deliverer = settingsFailure(() => loadDelivererProcessSettings({ ...bad, WEBHOOK_DELIVERER_PORT: 'x' }));
    for (const [message, port] of [
      [api, 'WEBHOOK_API_PORT'],
      [deliverer, 'WEBHOOK_DELIVERER_PORT'],
    ] as const) {
      expect(message).toContain(`${port} must be a port number`);
      expect(message).toContain('WEBHOOK_METRICS_TOKEN must be at least 16 characters');
      expect(message).toContain('OTEL_TRACES_SAMPLER_ARG must be a number from 0 to 1');
      expect(message.match(/Invalid settings/g)).toHaveLength(1);
    }
  });
});
