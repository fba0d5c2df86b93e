// The store and key ring a process of the webhook service works on, from its settings: PostgreSQL
// when DATABASE_URL is set, else the SQLite file under the data folder; the configured key ring, or
// the local key file. Shared by the API and a deliverer alone, which must open the same ones.
import { join } from 'node:path';
import type { Logger } from '@platform/shared';
import { CredentialVault } from './configs/credential-vault.ts';
import type { EncryptionKey } from './configs/credential-vault.ts';
import { loadEncryptionKeys } from './configs/encryption-keys.ts';
import { openPostgresStore } from './store/postgres-store.ts';
import { openSqliteStore } from './store/sqlite-store.ts';
import type { WebhookStore } from './store/webhook-store.ts';

export interface StoreSettings {
  readonly databaseUrl: string | undefined;
  readonly dataDir: string;
  readonly encryptionKeys: readonly EncryptionKey[] | undefined;
}

export function openStore(settings: StoreSettings, logger: Logger): Promise<WebhookStore> {
  return settings.databaseUrl
    ? openPostgresStore(settings.databaseUrl, {
        onIdleConnectionError: (error) => {
          logger.warn({ err: error }, 'an idle database connection failed; the pool replaces it');
        },
      })
    : openSqliteStore(join(settings.dataDir, 'webhooks.db'));
}

export function openVault(settings: StoreSettings, logger: Logger): CredentialVault {
  return new CredentialVault(loadEncryptionKeys({ configured: settings.encryptionKeys, dataDir: settings.dataDir, logger }));
}
