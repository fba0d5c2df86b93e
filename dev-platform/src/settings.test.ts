import { isPlatformError } from '@platform/shared';
import { describe, expect, it } from 'vitest';
import { loadDevPlatformSettings } from './settings.ts';

describe('loadDevPlatformSettings', () => {
  it('derives the issuer and the AI address from the ports by default', () => {
    expect(loadDevPlatformSettings({})).toMatchObject({ issuer: 'http://127.0.0.1:4000', aiBaseUrl: 'http://127.0.0.1:4001', tokenExchangeEnabled: true });
    expect(loadDevPlatformSettings({ PLATFORM_PORT: '4500', PLATFORM_TOKEN_EXCHANGE: 'false' })).toMatchObject({ issuer: 'http://127.0.0.1:4500', tokenExchangeEnabled: false });
  });

  it('names every bad variable in one message', () => {
    let error: unknown;
    try {
      loadDevPlatformSettings({ PLATFORM_PORT: '-3', PLATFORM_TOKEN_EXCHANGE: 'maybe', PLATFORM_ACCESS_TOKEN_TTL_SECONDS: '0' });
    } catch (caught) {
      error = caught;
    }
    expect(isPlatformError(error, 'SETTINGS_INVALID')).toBe(true);
    expect((error as Error).message).toContain('PLATFORM_PORT must be a port number');
    expect((error as Error).message).toContain('PLATFORM_TOKEN_EXCHANGE must be true or false');
    expect((error as Error).message).toContain('PLATFORM_ACCESS_TOKEN_TTL_SECONDS must be more than 0');
  });
});
