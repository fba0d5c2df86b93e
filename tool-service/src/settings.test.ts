import { settingsFailure } from '@platform/tool-sdk/testing';
import { describe, expect, it } from 'vitest';
import { loadToolServiceProcessSettings, loadToolServiceSettings } from './settings.ts';

describe('loadToolServiceSettings', () => {
  it('runs as the webhook-tools app on 127.0.0.1:50051 against the local webhook API when only the secret is given', () => {
    const settings = loadToolServiceSettings({ APP_CLIENT_SECRET: 's3cret' });
    expect(settings).toMatchObject({
      appClientId: 'webhook-tools',
      appClientSecret: 's3cret',
      serviceName: 'webhook-tools',
      callbackAddress: '127.0.0.1:50051',
      gatewayAddress: '127.0.0.1:3001',
      apiBaseUrl: 'http://127.0.0.1:4000',
      webhookApiBaseUrl: 'http://127.0.0.1:4100',
      logLevel: 'info',
    });
    expect(Object.isFrozen(settings)).toBe(true);
  });

  it('takes the defaults for variables set but empty, and the environment’s values over them', () => {
    expect(loadToolServiceSettings({ APP_CLIENT_SECRET: 's', SERVICE_NAME: '', APP_CLIENT_ID: '', CALLBACK_ADDRESS: '' })).toMatchObject({
      serviceName: 'webhook-tools',
      appClientId: 'webhook-tools',
      callbackAddress: '127.0.0.1:50051',
    });
    expect(
      loadToolServiceSettings({
        APP_CLIENT_SECRET: 's',
        APP_CLIENT_ID: 'other-app',
        SERVICE_NAME: 'other-tools',
        CALLBACK_ADDRESS: '127.0.0.1:0',
        WEBHOOK_API_BASE_URL: 'https://webhooks.example/base/',
        LOG_LEVEL: 'debug',
      }),
    ).toMatchObject({
      appClientId: 'other-app',
      serviceName: 'other-tools',
      callbackAddress: '127.0.0.1:0',
      webhookApiBaseUrl: 'https://webhooks.example/base',
      logLevel: 'debug',
    });
  });

  it('gives the client secret no default', () => {
    expect(settingsFailure(() => loadToolServiceSettings({}))).toBe('Invalid settings: APP_CLIENT_SECRET is required.');
  });

  it("names every bad variable, the SDK's and its own, in one message without echoing a value", () => {
    const message = settingsFailure(() =>
      loadToolServiceSettings({ SERVICE_NAME: 'Not Valid', CALLBACK_ADDRESS: 'nowhere', WEBHOOK_API_BASE_URL: 'http://webhooks.example', LOG_LEVEL: 'chatty' }),
    );
    for (const variable of ['APP_CLIENT_SECRET', 'SERVICE_NAME', 'CALLBACK_ADDRESS', 'WEBHOOK_API_BASE_URL', 'LOG_LEVEL']) expect(message).toContain(variable);
    expect(message).toContain('WEBHOOK_API_BASE_URL must use https');
    expect(message).not.toContain('chatty');
    expect(message.match(/Invalid settings/g)).toHaveLength(1);
  });
});

describe("the tool service process's settings", () => {
  it('reads the settings, the /metrics listener and the tracing in one parse; traces are named as the service registers', () => {
    const read = loadToolServiceProcessSettings({ APP_CLIENT_SECRET: 's', SERVICE_NAME: 'reports', METRICS_PORT: '9464', METRICS_PUBLIC: 'true' });
    expect(read.settings.serviceName).toBe('reports');
    expect(read.metrics).toMatchObject({ access: 'public', port: 9464, host: '127.0.0.1' });
    expect(read.telemetry.serviceName).toBe('reports');
    expect(loadToolServiceProcessSettings({ APP_CLIENT_SECRET: 's' }).telemetry.serviceName).toBe('webhook-tools');
  });

  it('names bad variables of every group (service, metrics, telemetry) in one message', () => {
    const message = settingsFailure(() =>
      loadToolServiceProcessSettings({ APP_CLIENT_SECRET: 's', CALLBACK_ADDRESS: 'nowhere', METRICS_PORT: '9464', OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' }),
    );
    expect(message).toContain('CALLBACK_ADDRESS must be host:port');
    expect(message).toContain('METRICS_TOKEN is required when METRICS_PORT is set');
    expect(message).toContain('OTEL_EXPORTER_OTLP_PROTOCOL must be http/protobuf or http/json');
    expect(message.match(/Invalid settings/g)).toHaveLength(1);
  });
});
