// The key ring for webhook credentials: from WEBHOOK_ENCRYPTION_KEY, or, for the embedded default,
// a key generated once into a 0600 file under the data folder (with a warning: fine on one machine,
// not for production).
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from '@platform/tool-sdk';
import { parseKeyRing, type EncryptionKey } from './credential-vault.ts';

/** Where the embedded default keeps its generated key: `<id>:<base64>` on one line. */
export const localKeyFile = (dataDir: string) => join(dataDir, 'webhook-encryption.key');

/** The id of the key in the local key file, if there is one (the key itself is not returned). */
export function localKeyId(dataDir: string): string | undefined {
  const file = localKeyFile(dataDir);
  if (!existsSync(file)) return undefined;
  return /^([A-Za-z0-9_-]{1,64}):/.exec(readFileSync(file, 'utf8').trim())?.[1];
}

/** The configured ring (already parsed by the settings), or the local key file's, made on first use. */
export function loadEncryptionKeys(options: { configured: readonly EncryptionKey[] | undefined; dataDir: string; logger: Logger }): readonly EncryptionKey[] {
  if (options.configured) return options.configured;
  const file = localKeyFile(options.dataDir);
  if (!existsSync(file)) {
    mkdirSync(options.dataDir, { recursive: true, mode: 0o700 });
    const id = `local-${new Date().toISOString().slice(0, 10).replaceAll('-', '')}`;
    writeFileSync(file, `${id}:${randomBytes(32).toString('base64')}\n`, { mode: 0o600 });
    chmodSync(file, 0o600);
  }
  options.logger.warn(
    { file },
    "WEBHOOK_ENCRYPTION_KEY is not set: webhook credentials are encrypted with a generated local key file; set the variable in production, with this file's line after the new key (new-id:<base64>,<the line>) while credentials encrypted with it remain",
  );
  return parseKeyRing(readFileSync(file, 'utf8').trim(), file);
}
