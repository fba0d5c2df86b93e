import nock from 'nock';
import { describe, expect, it } from 'vitest';
import { discoveryDocument, manualClock } from '../testing/index.ts';
import { stagePlatformWithNock } from '../../test/nock-platform.ts';
import { platformAppIdentity } from './platform-app-identity.ts';
import { loadPlatformAppSettings } from '../settings/platform-settings.ts';

const platform = 'http://127.0.0.1:4996';

function settings(clientId: string, clientSecret = 'secret-of-' + clientId) {
  return loadPlatformAppSettings({ PLATFORM_API_BASE_URL: platform, APP_CLIENT_ID: clientId, APP_CLIENT_SECRET: clientSecret });
}

stagePlatformWithNock();

describe('platformAppIdentity', () => {
  it('returns the same identity, and so one token cache, for the same credentials', () => {
    const first = platformAppIdentity(settings('app-same'));
    const second = platformAppIdentity(settings('app-same'));
    expect(second).toBe(first);
    expect(second.tokenProvider).toBe(first.tokenProvider);
    expect(platformAppIdentity(settings('app-same', 'rotated-secret'))).not.toBe(first);
    expect(platformAppIdentity(settings('app-other'))).not.toBe(first);
  });

  it('hands out a current token on every call: a held token goes stale, a new call gets a fresh one', async () => {
    const clock = manualClock();
    const identity = platformAppIdentity(settings('app-fresh'), { clock });
    nock(platform).get('/.well-known/openid-configuration').reply(200, discoveryDocument(platform));
    nock(platform).post('/token').reply(200, { access_token: 'token-1', token_type: 'Bearer', expires_in: 60 });
    expect(await identity.accessToken()).toBe('token-1');
    expect(await identity.accessToken()).toBe('token-1');
    nock(platform).post('/token').reply(200, { access_token: 'token-2', token_type: 'Bearer', expires_in: 60 });
    clock.advance(60_000);
    expect(await identity.accessToken()).toBe('token-2');
    expect(nock.isDone()).toBe(true);
  });

  it('reports null as the app key of a client linked to no app, without retrying', async () => {
    const identity = platformAppIdentity(settings('app-unlinked'));
    nock(platform).get('/.well-known/openid-configuration').reply(200, discoveryDocument(platform));
    nock(platform).post('/token').reply(200, { access_token: 'token-1', token_type: 'Bearer', expires_in: 300 });
    nock(platform).get('/api/apps/me').matchHeader('authorization', 'Bearer token-1').once().reply(200, { appKey: null });
    expect(await identity.appKey()).toBeNull();
    expect(await identity.appKey()).toBeNull();
    expect(nock.isDone()).toBe(true);
  });
});
