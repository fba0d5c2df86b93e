// The platform tools end to end, against the real dev platform: who the person is with the
// permissions narrowed to what person and app may both do, their companies and devices, and the
// app's own identity through its client credentials.
import { devSecrets, personToken, startPlatform } from '@platform/dev-platform/testing';
import { platformAppIdentity } from '@platform/tool-sdk';
import { loadPlatformAppSettings } from '@platform/tool-sdk/internal';
import { ToolError } from '@platform/tool-sdk/tools';
import { closedPort, startedForTests } from '@platform/tool-sdk/testing';
import { describe, expect, it } from 'vitest';
import { appInfo } from '../src/platform.tools.ts';
import { delegatedCalls, startedToolServiceForTests } from './harness.ts';

const platform = startedForTests(() => startPlatform());
// The platform tools never reach the webhook API; nothing listens there.
const tools = startedToolServiceForTests(() => ({ platformUrl: platform().issuer, webhookApiUrl: 'http://127.0.0.1:8' }));
const { tokens, call } = delegatedCalls(() => platform().issuer, tools);

describe('the platform tools', () => {
  it('whoami shows the person and, per company the app reaches, only what person and app may both do', async () => {
    expect(await call('whoami', {})).toMatchObject({
      ok: true,
      isError: false,
      text: '',
      result: {
        userId: 'u-oscar',
        companies: [
          // Oscar operates devices at 1, 2 and 3; the app was consented view and manage at 1, view at 2, and is not installed at 3.
          { id: 1, name: 'Acme Telemetry', isOwner: false, permissions: ['device-overview:manage', 'device-overview:view', 'webhook-tools:use'] },
          { id: 2, name: 'Acme Field Services', isOwner: false, permissions: ['device-overview:view', 'webhook-tools:use'] },
        ],
      },
    });
    expect(await call('whoami', {}, tokens.vera)).toMatchObject({
      result: { userId: 'u-vera', companies: [{ id: 1, permissions: ['device-overview:view', 'webhook-tools:use'] }] },
    });
  });

  it('list_companies lists the companies the app is installed at for the person, with their parents', async () => {
    expect(await call('list_companies', {})).toMatchObject({
      ok: true,
      isError: false,
      result: {
        companies: [
          { id: 1, name: 'Acme Telemetry', parentId: null },
          { id: 2, name: 'Acme Field Services', parentId: 1 },
        ],
      },
    });
  });

  it("list_devices lists a company's devices, and refuses a company where the person and app may not view them", async () => {
    expect(await call('list_devices', { companyId: 1 })).toMatchObject({
      ok: true,
      isError: false,
      result: {
        devices: [
          { id: 1001, companyId: 1, gatewayId: 'gw-acme-01', name: 'Boiler room sensor' },
          { id: 1002, companyId: 1, gatewayId: 'gw-acme-01', name: 'Roof weather station' },
        ],
      },
    });
    expect(await call('list_devices', { companyId: 2 })).toMatchObject({ result: { devices: [{ id: 2001 }] } });
    expect(await call('list_devices', { companyId: 3 })).toMatchObject({
      ok: false,
      codeName: 'PERMISSION_DENIED',
      details: expect.stringContaining('device-overview:view is needed at company 3') as unknown,
    });
  });

  it('app_info answers the client id and the app key, asked with the app’s own credentials', async () => {
    expect(await call('app_info', {})).toMatchObject({ ok: true, isError: false, text: '', result: { clientId: 'webhook-tools', appKey: 'webhook-tools' } });
    expect(await call('app_info', {}, tokens.vera)).toMatchObject({ result: { appKey: 'webhook-tools' } });
  });

  it("refuses every platform tool without a token delegated to this app, the person's own token included", async () => {
    const own = await personToken(platform().issuer, 'oscar');
    for (const name of ['whoami', 'list_companies', 'app_info']) {
      expect(await tools().client.call(name, {}, undefined), name).toMatchObject({ ok: false, codeName: 'UNAUTHENTICATED' });
      expect(await call(name, {}, own), name).toMatchObject({ ok: false, codeName: 'UNAUTHENTICATED' });
    }
  });

  it('never logs the delegated tokens', async () => {
    await call('whoami', {});
    await call('list_devices', { companyId: 3 }, tokens.vera);
    for (const lines of [tools().logs, platform().logs]) {
      expect(lines.length).toBeGreaterThan(0);
      expect(lines.join('')).not.toContain(tokens.oscar);
      expect(lines.join('')).not.toContain(tokens.vera);
    }
  });
});

describe('app_info for a client linked to no app', () => {
  // The platform issues no delegated token for such a client (the exchange refuses it), so no call
  // can reach the tool through gRPC: the handler is run directly, with the client's real identity.
  const run = (tool: ReturnType<typeof appInfo>) => Promise.resolve().then(() => tool.handler({} as never, undefined as never));

  it('says plainly that the client is linked to no app and that only an administrator can fix it', async () => {
    const settings = loadPlatformAppSettings({
      PLATFORM_API_BASE_URL: platform().issuer,
      APP_CLIENT_ID: 'legacy-sync',
      APP_CLIENT_SECRET: devSecrets.LEGACY_SYNC_CLIENT_SECRET,
    });
    const error = await run(appInfo(platformAppIdentity(settings))).catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(ToolError);
    expect(error).toMatchObject({
      code: 'APP_NOT_LINKED',
      message:
        'The client legacy-sync these tools run as is linked to no app, so there is no app key. Only a platform administrator can link it; trying again will not help.',
    });
  });

  it('says the platform could not be reached when it is down, and that credentials were refused when they are wrong', async () => {
    const port = await closedPort();
    const down = loadPlatformAppSettings({ PLATFORM_API_BASE_URL: `http://127.0.0.1:${port}`, APP_CLIENT_ID: 'webhook-tools', APP_CLIENT_SECRET: 'x' });
    await expect(run(appInfo(platformAppIdentity(down)))).rejects.toMatchObject({
      name: 'ToolError',
      code: 'UNAVAILABLE',
      message: 'The platform could not be reached to read the app key; try again shortly.',
    });
    const wrong = loadPlatformAppSettings({ PLATFORM_API_BASE_URL: platform().issuer, APP_CLIENT_ID: 'webhook-tools', APP_CLIENT_SECRET: 'not-the-secret' });
    const refused = await run(appInfo(platformAppIdentity(wrong))).catch((thrown: unknown) => thrown);
    expect(refused).toMatchObject({ name: 'ToolError', code: 'APP_CREDENTIALS_REJECTED' });
    expect((refused as Error).message).not.toContain('not-the-secret');
  });
});
