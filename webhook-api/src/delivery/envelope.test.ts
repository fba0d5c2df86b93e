import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { CredentialVault } from '../configs/credential-vault.ts';
import { createOpenApiDocument } from '../http/openapi.ts';
import { buildDeliveryRequest, buildEnvelopeBody, DeliveryBuildError, deliveryUserAgent } from './envelope.ts';
import type { OutgoingDelivery } from './outgoing.ts';
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import { outgoingDelivery, samplePoint, testPreviousSigningSecret, testSigningSecret, testVault } from '../../test/outgoing-delivery.ts';
import { signingSecretBinding } from '../configs/signing-secrets.ts';

const vault = testVault;
const decryptCredentials = (stored: string, configId: string): string => vault.decrypt(stored, configId);
const sentAt = '2025-03-04T05:06:07.089Z';
const point = samplePoint;
/** The Standard Webhooks headers of the fixture's delivery sent at `sentAt`. */
const standardWebhooksHeaders = {
  'webhook-id': 'msg_00000000-0000-4000-8000-000000000001',
  'webhook-timestamp': String(Math.floor(Date.parse(sentAt) / 1000)),
  'webhook-signature': expect.stringMatching(/^v1,\S+$/) as unknown as string,
};

const delivery = outgoingDelivery;

function withAuth(authType: OutgoingDelivery['authType'], payload: object): OutgoingDelivery {
  return delivery({ authType, authPayloadEncrypted: vault.encrypt(JSON.stringify(payload), 'cfg-1') });
}

describe('buildEnvelopeBody', () => {
  it('wraps one point for Realtime, with the company as a string', () => {
    expect(buildEnvelopeBody(delivery(), sentAt)).toBe(
      `{"Timestamp":"2025-03-04T05:06:07.089Z","Metadata":{"Company":"42","GatewayId":"gw-7","Measurement":"temp"},"Point":${point}}`,
    );
  });

  it('puts the points of a Batch in order in Points', () => {
    const second = point.replace('21.5', '22');
    expect(buildEnvelopeBody(delivery({ mode: 'Batch', points: [point, second] }), sentAt)).toBe(
      `{"Timestamp":"2025-03-04T05:06:07.089Z","Metadata":{"Company":"42","GatewayId":"gw-7","Measurement":"temp"},"Points":[${point},${second}]}`,
    );
  });

  it('escapes the metadata strings, and the result parses back to them', () => {
    const body = buildEnvelopeBody(delivery({ gatewayId: 'gw "1"\n\\', measurement: 'tempé\u2028' }), sentAt);
    expect(JSON.parse(body)).toMatchObject({ Metadata: { GatewayId: 'gw "1"\n\\', Measurement: 'tempé\u2028' } });
  });

  it('refuses a Realtime delivery with other than one point, and an empty Batch', () => {
    expect(() => buildEnvelopeBody(delivery({ points: [point, point] }), sentAt)).toThrow('a Realtime delivery carries exactly one point (this one has 2)');
    expect(() => buildEnvelopeBody(delivery({ points: [] }), sentAt)).toThrow(DeliveryBuildError);
    expect(() => buildEnvelopeBody(delivery({ mode: 'Batch', points: [] }), sentAt)).toThrow('a Batch delivery carries at least one point');
  });
});

describe('buildDeliveryRequest', () => {
  it("names the service's release in the User-Agent: the version the OpenAPI document states, not a placeholder", () => {
    const { info } = createOpenApiDocument('http://127.0.0.1:4100') as { info: { version: string } };
    expect(info.version).toMatch(/^[1-9]\d*\.\d+\.\d+$/);
    expect(deliveryUserAgent).toBe(`Platform.Cloud.Stream.WebhookHttpClient/${info.version}`);
  });

  it('sends the platform headers, and only those, for authType None', () => {
    expect(buildDeliveryRequest(delivery({ attempt: 2 }), { sentAt, decryptCredentials }).headers).toEqual({
      'content-type': 'application/json',
      'user-agent': deliveryUserAgent,
      'x-webhook-timestamp': sentAt,
      'x-webhook-retry-count': '2',
      ...standardWebhooksHeaders,
    });
  });

  it('leaves out the metadata and retry headers when switched off, never the Standard Webhooks ones', () => {
    const built = buildDeliveryRequest(delivery({ includeMetadataHeaders: false, includeRetryHeader: false }), { sentAt, decryptCredentials });
    expect(built.headers).toEqual({ 'content-type': 'application/json', ...standardWebhooksHeaders });
  });

  describe('Standard Webhooks', () => {
    const now = new Date();
    const build = (overrides: Partial<OutgoingDelivery> = {}) => buildDeliveryRequest(delivery(overrides), { sentAt: now.toISOString(), decryptCredentials });

    it('signs the id, the timestamp in seconds and the body with the secret, as the standardwebhooks library verifies', () => {
      const { body, headers } = build();
      expect(headers['webhook-id']).toBe('msg_00000000-0000-4000-8000-000000000001');
      expect(headers['webhook-timestamp']).toBe(String(Math.floor(now.getTime() / 1000)));
      expect(headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
      expect(new Webhook(testSigningSecret).verify(body, headers)).toEqual(JSON.parse(body));
      expect(() => new Webhook(testPreviousSigningSecret).verify(body, headers)).toThrow(WebhookVerificationError);
      expect(() => new Webhook(testSigningSecret).verify(body.replace('21.5', '21.6'), headers)).toThrow(WebhookVerificationError);
    });

    it('sends a signature by each secret while a rotation overlaps, and by the new one alone after', () => {
      const rotated = {
        current: testVault.encrypt(testSigningSecret, signingSecretBinding('cfg-1')),
        previous: testVault.encrypt(testPreviousSigningSecret, signingSecretBinding('cfg-1')),
        previousUntil: now.getTime() + 1,
      };
      const overlapping = build({ signingSecrets: rotated });
      expect(overlapping.headers['webhook-signature']?.split(' ')).toHaveLength(2);
      for (const secret of [testSigningSecret, testPreviousSigningSecret])
        expect(() => new Webhook(secret).verify(overlapping.body, overlapping.headers)).not.toThrow();
      const after = build({ signingSecrets: { ...rotated, previousUntil: now.getTime() } });
      expect(after.headers['webhook-signature']?.split(' ')).toHaveLength(1);
      expect(() => new Webhook(testPreviousSigningSecret).verify(after.body, after.headers)).toThrow(WebhookVerificationError);
    });

    it('refuses a signing secret that does not decrypt, bound as it is to its configuration and its use', () => {
      // The same ciphertext under another configuration's id, or as the credentials' binding, does not open.
      const elsewhere = testVault.encrypt(testSigningSecret, signingSecretBinding('cfg-2'));
      const asCredentials = testVault.encrypt(testSigningSecret, 'cfg-1');
      for (const current of [elsewhere, asCredentials]) {
        expect(() => build({ signingSecrets: { current, previous: null, previousUntil: null } })).toThrow(/^the stored signing secret could not be used/);
      }
    });
  });

  it.each([
    ['Bearer', { token: 'tok-123456' }, { authorization: 'Bearer tok-123456' }],
    ['ApiKey', { apiKeyValue: 'key-abcdef' }, { 'x-api-key': 'key-abcdef' }],
    ['Basic', { username: 'ann', password: 'pässwörd' }, { authorization: `Basic ${Buffer.from('ann:pässwörd', 'utf8').toString('base64')}` }],
    ['Custom', { headers: { 'X-Signature-A': 'sig-1', 'X-Tenant': 'blue' } }, { 'x-signature-a': 'sig-1', 'x-tenant': 'blue' }],
  ] as const)('sets the %s headers from the decrypted payload', (authType, payload, expected) => {
    const built = buildDeliveryRequest(withAuth(authType, payload), { sentAt, decryptCredentials });
    expect(built.headers).toMatchObject(expected);
  });

  it('adds the custom headers, and the platform headers win a clash', () => {
    const built = buildDeliveryRequest(delivery({ customHeaders: '{"X-Source":"plant-3","Content-Type":"text/plain"}' }), { sentAt, decryptCredentials });
    expect(built.headers).toMatchObject({ 'x-source': 'plant-3', 'content-type': 'application/json' });
  });

  it('keeps a configured name out of the object prototype', () => {
    const built = buildDeliveryRequest(delivery({ customHeaders: '{"__proto__":"x"}' }), { sentAt, decryptCredentials });
    expect(Object.getPrototypeOf(built.headers)).toBe(Object.prototype);
    expect(Object.keys(built.headers)).toContain('__proto__');
  });

  it('refuses credentials that do not decrypt, without quoting them', () => {
    const elsewhere = new CredentialVault([{ id: 'k2', key: randomBytes(32) }]);
    const stored = elsewhere.encrypt('{"token":"secret-token-1"}', 'cfg-1');
    const build = (): unknown => buildDeliveryRequest(delivery({ authType: 'Bearer', authPayloadEncrypted: stored }), { sentAt, decryptCredentials });
    expect(build).toThrow('the stored credentials for authType Bearer could not be decrypted (credential encrypted with key k2, which is not in the key ring)');
  });

  it('refuses credentials bound to another configuration', () => {
    const stored = vault.encrypt('{"token":"secret-token-1"}', 'cfg-other');
    expect(() => buildDeliveryRequest(delivery({ authType: 'Bearer', authPayloadEncrypted: stored }), { sentAt, decryptCredentials })).toThrow(
      /^the stored credentials for authType Bearer could not be decrypted/,
    );
  });

  it('refuses a payload without the key its authType needs, naming the key and not the value', () => {
    const build = (): unknown => buildDeliveryRequest(withAuth('Basic', { username: 'ann', pass: 'secret-pw' }), { sentAt, decryptCredentials });
    expect(build).toThrow('the stored credentials for authType Basic have no password');
  });

  it('refuses an authType with no stored credentials', () => {
    expect(() => buildDeliveryRequest(delivery({ authType: 'ApiKey' }), { sentAt, decryptCredentials })).toThrow(
      'the stored credentials for authType ApiKey are missing',
    );
  });

  it('lists the secrets the sender must keep out of its errors', () => {
    expect(buildDeliveryRequest(withAuth('Bearer', { token: 'tok-123456' }), { sentAt, decryptCredentials }).secrets).toEqual([
      'tok-123456',
      'Bearer tok-123456',
    ]);
  });
});
