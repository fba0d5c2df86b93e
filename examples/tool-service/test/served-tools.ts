// The service's tools served for real on loopback, as the gateway calls them, against the SDK's
// stand-in platform (@platform/tool-sdk/testing), without registering at a gateway: what each test
// file of the tools starts.
import { createLogger, createToolApp, type PlatformAppIdentity, type PlatformMcpSettings, type ToolDefinition } from '@platform/tool-sdk';
import { startPlatformFixture, startedForTests, type StagedCaller } from '@platform/tool-sdk/testing';

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

/** The stand-in platform and `tools` served against it, for the file's tests; `stageCaller` makes `token` a person of the app at `companies`. */
export function servedForTests(tools: readonly ToolDefinition[]) {
  const platform = startedForTests(startPlatformFixture);
  const served = startedForTests(async () => {
    const app = createToolApp({ settings: settingsFor(platform().url), identity, logger: createLogger({ name: 'test', level: 'silent' }) });
    app.registerTools(tools);
    return app.serve({ listenAddress: '127.0.0.1:0', register: false });
  });
  const stageCaller = (token: string, companies: StagedCaller['companies']): void => {
    platform().stage(token, { id: 'u-test', audience: [platform().url], actor: { clientId: 'example-tools' }, companies });
  };
  return { served, stageCaller };
}
