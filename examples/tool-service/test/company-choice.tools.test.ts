// A tool that asks the person, served for real and called as the gateway calls it: first the call
// ends with the question (a form with the caller's companies to choose from); called again with the
// person's answer, the tool finds it and answers. A client that cannot ask gets the first company.
import { createLogger, createToolApp, type PlatformAppIdentity, type PlatformMcpSettings } from '@platform/tool-sdk';
import { startPlatformFixture, startedForTests, toolClient } from '@platform/tool-sdk/testing';
import { describe, expect, it } from 'vitest';
import { choiceTools } from '../src/company-choice.tools.ts';

const platform = startedForTests(startPlatformFixture);

/** The app's own credentials are not needed: a test serves without registering at a gateway. */
const identity: PlatformAppIdentity = {
  clientId: 'example-tools',
  accessToken: () => Promise.reject(new Error('not used: the test does not register')),
  appKey: () => Promise.resolve(null),
  tokenProvider: { getToken: () => Promise.reject(new Error('not used')), invalidate: () => undefined },
};

const served = startedForTests(async () => {
  const settings: PlatformMcpSettings = {
    apiBaseUrl: platform().url,
    issuerUrl: platform().url,
    platformAiBaseUrl: platform().url,
    appClientId: 'example-tools',
    appClientSecret: 'unused-in-this-test',
    meCacheTtlSeconds: 60,
    httpTimeoutMs: 5_000,
    gatewayAddress: '127.0.0.1:9',
    callbackAddress: '127.0.0.1:0',
    serviceName: 'example-tools',
    ttlSeconds: 30,
  };
  const app = createToolApp({ settings, identity, logger: createLogger({ name: 'test', level: 'silent' }) });
  app.registerTools(choiceTools);
  return app.serve({ listenAddress: '127.0.0.1:0', register: false });
});

function stageCaller(token: string): void {
  platform().stage(token, {
    id: 'u-test',
    audience: [platform().url],
    actor: { clientId: 'example-tools' },
    companies: [
      { id: 1, name: 'Acme', isOwner: false, roles: ['operator'], permissions: ['device-overview:view', 'device-overview:manage'] },
      { id: 2, name: 'Acme Field', isOwner: false, roles: ['viewer'], permissions: ['device-overview:view'] },
    ],
  });
}

describe('choose_company', () => {
  it('asks the person which company, then answers for the one they chose', async () => {
    stageCaller('token-a');
    const client = toolClient(served().address);
    try {
      const asking = { client: { elicitationForm: true } };
      const first = await client.call('choose_company', {}, 'token-a', asking);
      if (!first.ok || !first.inputRequired) throw new Error(`expected a question, got ${JSON.stringify(first)}`);
      const [[key, question] = []] = Object.entries(first.inputRequired);
      expect(question?.form?.message).toBe('Which company should I look at?');
      expect(JSON.parse(question?.form?.requestedSchemaJson ?? '{}')).toMatchObject({ properties: { company: { enum: ['Acme', 'Acme Field'] } } });

      const answered = await client.call('choose_company', {}, 'token-a', {
        ...asking,
        inputResponses: { [key ?? '']: { action: 'accept', content: { company: 'Acme Field' } } },
      });
      expect(answered).toMatchObject({
        ok: true,
        isError: false,
        result: { companyId: 2, name: 'Acme Field', permissions: ['device-overview:view'], asked: true },
      });
    } finally {
      client.close();
    }
  });

  it('takes the first company when the client cannot ask the person', async () => {
    stageCaller('token-b');
    const client = toolClient(served().address);
    try {
      expect(await client.call('choose_company', {}, 'token-b')).toMatchObject({ ok: true, result: { companyId: 1, asked: false } });
    } finally {
      client.close();
    }
  });
});
