// What the tests of the tool app give createToolApp: the settings of a tool service on a stand-in
// platform (no gateway: 127.0.0.1:9 is never reached) and an app identity with a fixed token.
import type { PlatformAppIdentity } from '../src/identity/platform-app-identity.ts';
import type { PlatformMcpSettings } from '../src/settings/platform-settings.ts';

/** The app the tool service runs as. */
export const appClientId = 'webhook-tools';

/** A tool service's settings with the platform at `platformUrl`. */
export function settingsFor(platformUrl: string, overrides: Partial<PlatformMcpSettings> = {}): PlatformMcpSettings {
  return {
    apiBaseUrl: platformUrl,
    issuerUrl: platformUrl,
    platformAiBaseUrl: 'http://127.0.0.1:9',
    appClientId,
    appClientSecret: 'app-secret',
    meCacheTtlSeconds: 60,
    httpTimeoutMs: 2_000,
    gatewayAddress: '127.0.0.1:9',
    callbackAddress: '127.0.0.1:0',
    serviceName: 'webhook-tools',
    ttlSeconds: 30,
    ...overrides,
  };
}

/** The app's identity, its token from `appToken`. */
export const identity = (appToken = () => 'app-token'): PlatformAppIdentity => ({
  clientId: appClientId,
  accessToken: () => Promise.resolve(appToken()),
  appKey: () => Promise.resolve(appClientId),
  tokenProvider: { getToken: () => Promise.resolve(appToken()) } as unknown as PlatformAppIdentity['tokenProvider'],
});
