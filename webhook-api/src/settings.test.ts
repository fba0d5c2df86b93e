import { settingsFailure } from '@platform/shared/testing';
import { describe, expect, it } from 'vitest';
import { loadWebhookApiSettings } from './settings.ts';

describe('loadWebhookApiSettings', () => {
  it('defaults to SQLite under ./data with a 60 s caller cache', () => {
    expect(loadWebhookApiSettings({})).toMatchObject({
      port: 4100,
      databaseUrl: undefined,
      meCacheTtlSeconds: 60,
      platformApiBaseUrl: 'http://127.0.0.1:4000',
    });
  });

  it('names every bad variable and never echoes a secret value', () => {
    const message = settingsFailure(() =>
      loadWebhookApiSettings({ WEBHOOK_API_PORT: 'x', DATABASE_URL: 'mysql://u:secret-password@h/db', ME_CACHE_TTL_SECONDS: '-1' }),
    );
    expect(message).toContain('WEBHOOK_API_PORT');
    expect(message).toContain('DATABASE_URL must be a postgres:// URL');
    expect(message).toContain('ME_CACHE_TTL_SECONDS');
    expect(message).not.toContain('secret-password');
  });
});
