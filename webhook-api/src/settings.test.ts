import { isPlatformError } from '@platform/shared';
import { describe, expect, it } from 'vitest';
import { loadWebhookApiSettings } from './settings.ts';

describe('loadWebhookApiSettings', () => {
  it('defaults to SQLite under ./data with a 60 s caller cache', () => {
    expect(loadWebhookApiSettings({})).toMatchObject({ port: 4100, databaseUrl: undefined, meCacheTtlSeconds: 60, platformApiBaseUrl: 'http://127.0.0.1:4000' });
  });

  it('names every bad variable and never echoes a secret value', () => {
    let error: unknown;
    try {
      loadWebhookApiSettings({ WEBHOOK_API_PORT: 'x', DATABASE_URL: 'mysql://u:secret-password@h/db', ME_CACHE_TTL_SECONDS: '-1' });
    } catch (caught) {
      error = caught;
    }
    expect(isPlatformError(error, 'SETTINGS_INVALID')).toBe(true);
    const message = (error as Error).message;
    expect(message).toContain('WEBHOOK_API_PORT');
    expect(message).toContain('DATABASE_URL must be a postgres:// URL');
    expect(message).toContain('ME_CACHE_TTL_SECONDS');
    expect(message).not.toContain('secret-password');
  });
});
