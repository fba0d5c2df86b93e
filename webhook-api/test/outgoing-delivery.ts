// An OutgoingDelivery for the sender's and envelope's tests: one Realtime point of company 42,
// configuration cfg-1, no credentials, every metadata header on, signed with a secret of the test
// key ring (testVault).
import { randomBytes } from 'node:crypto';
import { CredentialVault } from '../src/configs/credential-vault.ts';
import { signingSecretBinding } from '../src/configs/signing-secrets.ts';
import type { OutgoingDelivery } from '../src/delivery/outgoing.ts';

/** The key ring the fixtures are encrypted with. */
export const testVault = new CredentialVault([{ id: 'k1', key: randomBytes(32) }]);
/** The signing secret of configuration cfg-1, and a second one (as if rotated). */
export const testSigningSecret = `whsec_${randomBytes(32).toString('base64')}`;
export const testPreviousSigningSecret = `whsec_${randomBytes(32).toString('base64')}`;

export const samplePoint = '{"Measurement":"temp","Fields":{"value":21.5},"Tags":{"room":"a"},"UtcTimestamp":"2025-03-04T05:06:00.000Z"}';

export function outgoingDelivery(overrides: Partial<OutgoingDelivery> = {}): OutgoingDelivery {
  return {
    configId: 'cfg-1',
    companyId: 42,
    url: 'https://hooks.example.com/in',
    method: 'POST',
    authType: 'None',
    authPayloadEncrypted: null,
    customHeaders: null,
    includeMetadataHeaders: true,
    includeRetryHeader: true,
    mode: 'Realtime',
    gatewayId: 'gw-7',
    measurement: 'temp',
    points: [samplePoint],
    attempt: 0,
    webhookId: 'msg_00000000-0000-4000-8000-000000000001',
    signingSecrets: { current: testVault.encrypt(testSigningSecret, signingSecretBinding('cfg-1')), previous: null, previousUntil: null },
    ...overrides,
  };
}
