// The worked example of a new tool service in docs/tool-sdk.md is examples/hello-tools.ts, word for word, and
// it runs as written: started as its own process against the dev platform and a registry, it
// registers and answers a delegated call.
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { delegatedToken, devSecrets, startPlatform } from '@platform/dev-platform/testing';
import { startedForTests, startRegistryFixture, toolClient } from '@platform/tool-sdk/testing';
import { afterAll, describe, expect, it } from 'vitest';
import { sourceCondition } from '@platform/devtools/source-condition';
import { killedIfTestFails } from '@platform/devtools/test-processes';

const root = resolve(import.meta.dirname, '../..');
const examplePath = resolve(root, 'examples/hello-tools.ts');
const platform = startedForTests(() => startPlatform());
const gateway = startedForTests(() => startRegistryFixture());
let child: ChildProcess | undefined;
afterAll(() => {
  child?.kill('SIGKILL');
});

describe('the docs/tool-sdk.md example tool service', () => {
  it('is in docs/tool-sdk.md word for word', () => {
    expect(readFileSync(resolve(root, 'docs/tool-sdk.md'), 'utf8')).toContain(`\`\`\`ts\n${readFileSync(examplePath, 'utf8')}\`\`\``);
  });

  it('runs as written: registers at the gateway and counts a company’s devices for a delegated caller', async () => {
    child = killedIfTestFails(
      spawn(process.execPath, [sourceCondition, examplePath], {
        env: {
          PATH: process.env.PATH,
          PLATFORM_API_BASE_URL: platform().issuer,
          APP_CLIENT_ID: 'webhook-tools',
          APP_CLIENT_SECRET: devSecrets.WEBHOOK_TOOLS_CLIENT_SECRET,
          SERVICE_NAME: 'hello-tools',
          CALLBACK_ADDRESS: '127.0.0.1:0',
          GATEWAY_ADDRESS: gateway().address,
        },
        stdio: 'ignore',
      }),
    );
    await expect.poll(() => gateway().alive().length, { timeout: 10_000 }).toBe(1);
    const [registration] = gateway().alive();
    expect(registration?.serviceName).toBe('hello-tools');
    const client = toolClient(registration?.callbackAddress ?? '');
    const token = await delegatedToken(platform().issuer, 'oscar');
    expect(await client.call('count_devices', { companyId: 1 }, token)).toMatchObject({ ok: true, result: { companyId: 1, devices: 2 } });
    expect(await client.call('count_devices', { companyId: 3 }, token)).toMatchObject({ ok: false, codeName: 'PERMISSION_DENIED' });
    client.close();
  });
});
