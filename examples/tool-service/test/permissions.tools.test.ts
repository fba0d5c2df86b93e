// The service's tools served for real on loopback, as the gateway calls them, against the SDK's
// stand-in platform (@platform/tool-sdk/testing): the call context holds the caller's permissions,
// narrowed by the platform to the person's and the app's, and the declared permission is enforced.
import { createLogger, createToolApp, type PlatformAppIdentity, type PlatformMcpSettings } from '@platform/tool-sdk';
import { startPlatformFixture, startedForTests, toolClient } from '@platform/tool-sdk/testing';
import { describe, expect, it } from 'vitest';
import { permissionTools } from '../src/permissions.tools.ts';

const platform = startedForTests(startPlatformFixture);

/** The app's own credentials are not needed: a test serves without registering at a gateway. */
const identity: PlatformAppIdentity = {
  clientId: 'example-tools',
  accessToken: () => Promise.reject(new Error('not used: the test does not register')),
  appKey: () => Promise.resolve(null),
  tokenProvider: { getToken: () => Promise.reject(new Error('not used')), invalidate: () => undefined },
};

function settingsFor(platformUrl: string): PlatformMcpSettings {
  return {
    apiBaseUrl: platformUrl,
    issuerUrl: platformUrl,
    platformAiBaseUrl: platformUrl,
    appClientId: 'example-tools',
    appClientSecret: 'unused-in-this-test',
    meCacheTtlSeconds: 60,
    httpTimeoutMs: 5_000,
    gatewayAddress: '127.0.0.1:9',
    callbackAddress: '127.0.0.1:0',
    serviceName: 'example-tools',
    ttlSeconds: 30,
  };
}

const served = startedForTests(async () => {
  const app = createToolApp({ settings: settingsFor(platform().url), identity, logger: createLogger({ name: 'test', level: 'silent' }) });
  app.registerTools(permissionTools);
  return app.serve({ listenAddress: '127.0.0.1:0', register: false });
});

function stageCaller(token: string): void {
  platform().stage(token, {
    id: 'u-test',
    audience: [platform().url],
    actor: { clientId: 'example-tools' },
    companies: [
      { id: 1, name: 'Acme', isOwner: false, roles: ['operator'], permissions: ['device-overview:view', 'device-overview:manage'] },
      { id: 2, name: 'Acme Field', isOwner: true, roles: [], permissions: [] },
    ],
  });
}

describe('my_permissions', () => {
  it("answers with the caller's narrowed permissions at the company", async () => {
    stageCaller('token-a');
    const client = toolClient(served().address);
    try {
      const answer = await client.call('my_permissions', { companyId: 1 }, 'token-a');
      expect(answer).toMatchObject({
        ok: true,
        isError: false,
        result: { companyId: 1, permissions: ['device-overview:manage', 'device-overview:view'], mayManageDevices: true },
      });
    } finally {
      client.close();
    }
  });

  it('refuses a company where the caller may not view devices, owner or not', async () => {
    stageCaller('token-b');
    const client = toolClient(served().address);
    try {
      expect(await client.call('my_permissions', { companyId: 2 }, 'token-b')).toMatchObject({ ok: false, codeName: 'PERMISSION_DENIED' });
    } finally {
      client.close();
    }
  });
});
