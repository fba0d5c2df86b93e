// Safe defaults an operator meets at start-up, each a whole process refusing in one line: /metrics
// needs a token unless opened on purpose, and a key ring that lacks the key of a stored credential
// is refused before any delivery of that credential's configuration could be dropped for it.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createLogger } from '@platform/tool-sdk';
import { startPlatform } from '@platform/dev-platform/testing';
import { closedPort, startedForTests } from '@platform/tool-sdk/testing';
import { describe, expect, inject, it } from 'vitest';
import { CredentialVault, type EncryptionKey } from '../src/configs/credential-vault.ts';
import { loadEncryptionKeys } from '../src/configs/encryption-keys.ts';
import { newStoreLocation, startWebhookApi, telemetryPoint, testIngestToken, type Backend, type StoreLocation } from './harness.ts';
import { startReceiver } from './receiver.ts';
import { storedConfig } from './stored-config.ts';
import { serviceEnv, startService, type DatabaseEnv } from './service-process.ts';
import { firstSigningSecrets } from '../src/configs/signing-secrets.ts';

const platform = startedForTests(() => startPlatform());
const boiler = 1001;
const metricsToken = 'test-metrics-token-0123456789';

const ringOf = (...keys: EncryptionKey[]) => keys.map(({ id, key }) => `${id}:${key.toString('base64')}`).join(',');
const newKey = (id: string): EncryptionKey => ({ id, key: randomBytes(32) });

/** What each entry point needs besides the database and key ring: its port, and the API its ingest token and platform. */
async function ownVariables(script: 'main.ts' | 'deliverer-main.ts'): Promise<{ port: number; env: Record<string, string> }> {
  const port = await closedPort();
  const env: Record<string, string> =
    script === 'main.ts'
      ? { WEBHOOK_API_PORT: String(port), WEBHOOK_INGEST_TOKEN: testIngestToken, PLATFORM_API_BASE_URL: platform().issuer, WEBHOOK_RUN_DELIVERER: 'false' }
      : { WEBHOOK_DELIVERER_PORT: String(port) };
  return { port, env: { ...env, WEBHOOK_METRICS_TOKEN: metricsToken } };
}

const service = { 'main.ts': 'webhook-api', 'deliverer-main.ts': 'webhook-deliverer' } as const;

/** Where a child process finds the store the test opened. */
function databaseOf(location: StoreLocation, dataDir: string): DatabaseEnv {
  return location.postgresUrl ? { DATABASE_URL: location.postgresUrl, WEBHOOK_DATA_DIR: dataDir } : { WEBHOOK_DATA_DIR: dataDir };
}

describe('/metrics at start-up', () => {
  it('refuses to start an API or a deliverer with neither WEBHOOK_METRICS_TOKEN nor WEBHOOK_METRICS_PUBLIC=true, in one line naming both', async () => {
    for (const script of ['main.ts', 'deliverer-main.ts'] as const) {
      const { env } = await ownVariables(script);
      const { WEBHOOK_METRICS_TOKEN: _token, ...withoutToken } = env;
      const run = startService(script, serviceEnv({ WEBHOOK_DATA_DIR: mkdtempSync(join(tmpdir(), 'start-up-')) }, withoutToken));
      expect(await run.exited).toBe(1);
      const lines = run.stderr().trimEnd().split('\n');
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(
        new RegExp(`^${service[script]} cannot start: Invalid settings: WEBHOOK_METRICS_TOKEN is required: .*WEBHOOK_METRICS_PUBLIC=true`),
      );
    }
  });
});

describe.each<Backend>(['SQLite', 'PostgreSQL'])('the key ring at start-up on %s', (backend) => {
  it('refuses an API and a deliverer whose ring lacks a stored credential’s key, naming it; the delivery waits and goes once the key is kept', async () => {
    const location = await newStoreLocation(backend, inject('postgresUrl'));
    const dataDir = location.sqlitePath ? dirname(location.sqlitePath) : mkdtempSync(join(tmpdir(), 'start-up-'));
    const [old, next] = [newKey('old-1'), newKey('new-1')];
    const receiver = await startReceiver();
    const api = await startWebhookApi({ location, platformUrl: platform().issuer, vault: new CredentialVault([old]) });
    try {
      const oscar = await api.clientAs('oscar');
      const created = await oscar('POST', '/v2/webhooks?companyId=1', {
        name: 'kept key',
        url: `${receiver.url}/kept`,
        deliveryMode: 'Realtime',
        authType: 'Bearer',
        authPayload: JSON.stringify({ token: 'kept-receiver-token' }),
      });
      const id = (created.body as { id: string }).id;
      expect((await oscar('POST', `/v2/webhooks/${id}/devices/${boiler}`)).status).toBe(201);
      expect((await oscar('POST', `/v2/webhooks/${id}/devices/${boiler}/routes`, { scopeLevel: 'Device', enabled: true })).status).toBe(201);
      expect(await api.ingest([telemetryPoint(boiler)])).toEqual({ status: 202, body: { accepted: 1, queued: 1 } });

      // The key rotated without keeping the old one, as the start-up warning's advice was once followed.
      for (const script of ['main.ts', 'deliverer-main.ts'] as const) {
        const { env } = await ownVariables(script);
        const run = startService(script, serviceEnv(databaseOf(location, dataDir), { ...env, WEBHOOK_ENCRYPTION_KEY: ringOf(next) }));
        expect(await run.exited).toBe(1);
        expect(run.stderr()).toBe(
          `${service[script]} cannot start: stored webhook credentials are encrypted with key id old-1, which is not in the key ring, ` +
            'so their deliveries could not be sent; keep it by listing it after the current key: ' +
            'WEBHOOK_ENCRYPTION_KEY=new-1:<its base64 key>,old-1:<its base64 key>\n',
        );
      }
      // Nothing was claimed, so nothing was dropped.
      expect((await api.store.deliveries.stats()).queued).toBe(1);
      expect(receiver.received).toEqual([]);

      const { port, env } = await ownVariables('deliverer-main.ts');
      const deliverer = startService('deliverer-main.ts', serviceEnv(databaseOf(location, dataDir), { ...env, WEBHOOK_ENCRYPTION_KEY: ringOf(next, old) }));
      try {
        await deliverer.ready(port);
        const [delivered] = await receiver.waitFor(1);
        expect(delivered?.headers.authorization).toBe('Bearer kept-receiver-token');
        // Its /metrics asks for the token.
        expect((await fetch(`http://127.0.0.1:${port}/metrics`)).status).toBe(401);
        expect((await fetch(`http://127.0.0.1:${port}/metrics`, { headers: { authorization: `Bearer ${metricsToken}` } })).status).toBe(200);
      } finally {
        await deliverer.stop();
      }
    } finally {
      await api.close();
      await receiver.close();
    }
  });

  it('names the generated local key file when the ring set in WEBHOOK_ENCRYPTION_KEY leaves out its key, and starts once its line is added', async () => {
    const location = await newStoreLocation(backend, inject('postgresUrl'));
    const dataDir = location.sqlitePath ? dirname(location.sqlitePath) : mkdtempSync(join(tmpdir(), 'start-up-'));
    // The embedded default: no WEBHOOK_ENCRYPTION_KEY, so a key is generated into the data folder.
    const local = loadEncryptionKeys({ configured: undefined, dataDir, logger: createLogger({ name: 'test', level: 'silent' }) });
    const localId = local[0]?.id ?? '';
    const store = await location.open();
    try {
      const config = storedConfig({ authType: 'Bearer' });
      const vault = new CredentialVault(local);
      await store.createConfig({
        ...config,
        authPayloadEncrypted: vault.encrypt('{"token":"t"}', config.id),
        signingSecrets: firstSigningSecrets(vault, config.id),
      });
    } finally {
      await store.close();
    }
    const keyFile = join(dataDir, 'webhook-encryption.key');
    const next = newKey('new-1');

    const { env } = await ownVariables('main.ts');
    const refused = startService('main.ts', serviceEnv(databaseOf(location, dataDir), { ...env, WEBHOOK_ENCRYPTION_KEY: ringOf(next) }));
    expect(await refused.exited).toBe(1);
    expect(refused.stderr().trimEnd().split('\n')).toEqual([
      `webhook-api cannot start: stored webhook credentials are encrypted with key id ${localId}, which is not in the key ring, ` +
        `so their deliveries could not be sent; keep it by listing it after the current key: ` +
        `WEBHOOK_ENCRYPTION_KEY=new-1:<its base64 key>,${localId}:<its base64 key> (${localId} is the generated local key: its line is in ${keyFile})`,
    ]);
    expect(refused.stderr()).not.toContain(readFileSync(keyFile, 'utf8').trim().split(':')[1]);

    // Following the advice: the file's line after the new key.
    const kept = await ownVariables('main.ts');
    const started = startService(
      'main.ts',
      serviceEnv(databaseOf(location, dataDir), { ...kept.env, WEBHOOK_ENCRYPTION_KEY: `${ringOf(next)},${readFileSync(keyFile, 'utf8').trim()}` }),
    );
    try {
      await started.ready(kept.port);
    } finally {
      await started.stop();
    }
  });
});
