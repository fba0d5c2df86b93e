// `npm run tool-env -- <name> --out <file>` as a person runs it from a folder of their own, against
// a running dev platform on a moved port that data/stack.json records, with npm start's development
// CA: the .env holds the stack's addresses as recorded, a certificate of that CA issued for the
// name, and the credentials of an app of its own that the platform now knows as a tool publisher.
// Without a running stack, or without the CA, it says so and writes nothing.
import { X509Certificate } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseEnv } from 'node:util';
import { ensureDevCertificates } from '@platform/devtools/dev-certificates';
import { appToken, startPlatform, type RunningPlatform } from '@platform/dev-platform/testing';
import { closedPort } from '@platform/tool-sdk/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeStackFile } from '../src/stack/stack-file.ts';
import { repoRoot } from '../src/repo-root.ts';
import { runNpm, shellVariables } from './stack-process.ts';

let platform: RunningPlatform;
let dataDir: string;
beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'tool-env-data-'));
  platform = await startPlatform({ env: { PLATFORM_APPS_FILE: join(dataDir, 'dev-apps.json') } });
  await ensureDevCertificates(join(dataDir, 'tls'), []);
  // What npm start records once its stack is ready, here with the platform's moved port.
  writeStackFile(join(dataDir, 'stack.json'), {
    command: 'npm start',
    pid: process.pid,
    startedAt: new Date().toISOString(),
    addresses: {
      platformUrl: platform.issuer,
      aiUrl: platform.aiUrl,
      mcpUrl: 'http://127.0.0.1:13000/mcp',
      registryAddress: '127.0.0.1:13001',
      toolServiceAddress: '127.0.0.1:13051',
      webhookApiUrls: ['http://127.0.0.1:13100'],
      delivererUrls: [],
      receiverUrl: 'http://127.0.0.1:13900',
    },
  });
});
afterAll(() => platform.close());

/** `npm --prefix <repository> run tool-env -- <args>` from `cwd`, as a person in their own folder types it. */
async function toolEnv(args: readonly string[], cwd: string, env: Record<string, string> = {}) {
  const run = runNpm(['--prefix', repoRoot, 'run', '--silent', 'tool-env', '--', ...args], { ...shellVariables(), WEBHOOK_DATA_DIR: dataDir, ...env }, cwd);
  return { code: await run.exited, output: run.output() };
}

describe('npm run tool-env', () => {
  it("writes the stack's recorded addresses, a certificate for the name and an app of its own into the .env, 0600", async () => {
    const home = mkdtempSync(join(tmpdir(), 'tool-env-home-'));
    mkdirSync(join(home, 'my-tools'));
    // A .env the person keeps variables of their own in, and an old value to replace.
    writeFileSync(join(home, 'my-tools/.env'), 'MY_OWN_SETTING=kept\nAPP_CLIENT_ID=webhook-tools\n');
    const { code, output } = await toolEnv(['my-tools', '--out', 'my-tools/.env'], home);
    expect(code, output).toBe(0);
    const file = join(home, 'my-tools/.env');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const env = parseEnv(readFileSync(file, 'utf8'));
    expect(env).toMatchObject({
      MY_OWN_SETTING: 'kept',
      APP_CLIENT_ID: 'my-tools',
      SERVICE_NAME: 'my-tools',
      PLATFORM_API_BASE_URL: platform.issuer,
      PLATFORM_AI_BASE_URL: platform.aiUrl,
      GATEWAY_ADDRESS: '127.0.0.1:13001',
      CALLBACK_ADDRESS: '127.0.0.1:0',
      GRPC_TLS_CA_FILE: join(dataDir, 'tls/ca.pem'),
      GRPC_TLS_CERT_FILE: join(dataDir, 'tls/services/my-tools.pem'),
      GRPC_TLS_KEY_FILE: join(dataDir, 'tls/services/my-tools-key.pem'),
      GRPC_TLS_REQUIRE_CLIENT_CERT: 'true',
    });
    const certificate = new X509Certificate(readFileSync(env.GRPC_TLS_CERT_FILE ?? ''));
    expect(certificate.subject).toBe('CN=my-tools');
    expect(certificate.verify(new X509Certificate(readFileSync(env.GRPC_TLS_CA_FILE ?? '')).publicKey)).toBe(true);

    // The app is the platform's now: its own key, a tool publisher, its credentials working.
    const secret = env.APP_CLIENT_SECRET ?? '';
    const response = await fetch(`${platform.issuer}/api/apps/me`, {
      headers: { authorization: `Bearer ${await appToken(platform.issuer, 'my-tools', secret)}` },
    });
    expect(await response.json()).toEqual({ clientId: 'my-tools', appKey: 'my-tools', name: 'my-tools', toolPublisher: true });
    expect(platform.platform.world.app('my-tools')?.installations).toEqual([
      { companyId: 1, consentedPermissions: ['device-overview:view', 'device-overview:manage'] },
      { companyId: 2, consentedPermissions: ['device-overview:view'] },
    ]);
    expect(output).toContain('registered the app my-tools on the dev platform');
    expect(output).toContain(`wrote ${file} (mode 0600`);
    expect(output).not.toContain(secret);
  }, 60_000);

  it('installs the app where --company says, with that consent', async () => {
    const home = mkdtempSync(join(tmpdir(), 'tool-env-home-'));
    const { code, output } = await toolEnv(['fleet-probe', '--out', '.env', '--company', '3=device-overview:view'], home);
    expect(code, output).toBe(0);
    expect(platform.platform.world.app('fleet-probe')?.installations).toEqual([{ companyId: 3, consentedPermissions: ['device-overview:view'] }]);
  }, 60_000);

  it('says no stack is running, and writes nothing, when nothing answers where the stack should be', async () => {
    const home = mkdtempSync(join(tmpdir(), 'tool-env-home-'));
    const port = await closedPort();
    const { code, output } = await toolEnv(['my-tools', '--out', '.env'], home, { PLATFORM_PORT: String(port) });
    expect(code).toBe(1);
    expect(output).toContain(`npm run tool-env: no stack is running (nothing answers at http://127.0.0.1:${port}): start it with npm start`);
    expect(existsSync(join(home, '.env'))).toBe(false);
  }, 60_000);

  it('says the development CA is missing, and registers nothing, when the stack has none', async () => {
    const home = mkdtempSync(join(tmpdir(), 'tool-env-home-'));
    const { code, output } = await toolEnv(['no-ca-tools', '--out', '.env'], home, { PLATFORM_PORT: new URL(platform.issuer).port, WEBHOOK_DATA_DIR: home });
    expect(code).toBe(1);
    expect(output).toContain('holds no development CA with its key');
    expect(platform.platform.world.app('no-ca-tools')).toBeUndefined();
    expect(existsSync(join(home, '.env'))).toBe(false);
  }, 60_000);

  it.each([
    [['my-tools'], '--out: name the .env file to write'],
    [['My_Tools', '--out', '.env'], '<name>: My_Tools must be 1 to 63 lower-case letters'],
    [['my-tools', '--out', '.env', '--company', 'acme'], '--company acme: must be <company id>=<permission>,...'],
    [['my-tools', '--out', '.env', '--permission', 'webhook-tools:use'], "--permission webhook-tools:use: must be a permission of the app's own namespace"],
  ])(
    'refuses %j, naming the argument',
    async (args, message) => {
      const { code, output } = await toolEnv(args, mkdtempSync(join(tmpdir(), 'tool-env-home-')));
      expect(code).toBe(2);
      expect(output).toContain(message);
    },
    60_000,
  );
});
