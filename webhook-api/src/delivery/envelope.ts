// The request one delivery attempt makes: the envelope (built from the points' JSON text, never
// re-parsed) and the headers (platform, retry, custom, the decrypted authentication, and the
// Standard Webhooks id, timestamp and signature).
import { signingSecretBinding, signingSecretsAt } from '../configs/signing-secrets.ts';
import type { DecryptCredentials, OutgoingDelivery } from './outgoing.ts';
import type { KeyObject } from 'node:crypto';
import { webhookServiceRelease } from './service-release.ts';
import { signatureHeader } from './signature.ts';
import { uncachedSigningKeys, type SigningKeys } from './signing-keys.ts';

/** The User-Agent of deliveries with metadata headers: the webhook service's release. */
export const deliveryUserAgent = `Platform.Cloud.Stream.WebhookHttpClient/${webhookServiceRelease}`;

/** Why a request could not be built from what is stored: the attempt is dropped. The message never holds a credential. */
export class DeliveryBuildError extends Error {
  readonly code: 'WEBHOOK_CREDENTIALS' | 'WEBHOOK_CUSTOM_HEADERS' | 'WEBHOOK_POINTS' | 'WEBHOOK_SIGNING_SECRET';

  constructor(code: DeliveryBuildError['code'], message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'DeliveryBuildError';
    this.code = code;
  }
}

export interface DeliveryRequest {
  readonly body: string;
  /** Lower-case names. */
  readonly headers: Readonly<Record<string, string>>;
  /** The decrypted credential values, so the sender can keep them out of any error text. */
  readonly secrets: readonly string[];
}

/** The envelope: `{"Timestamp":...,"Metadata":{...},"Point":...}` (Realtime, one point) or `"Points":[...]` (Batch). */
export function buildEnvelopeBody(delivery: Pick<OutgoingDelivery, 'mode' | 'companyId' | 'gatewayId' | 'measurement' | 'points'>, sentAt: string): string {
  const { mode, points } = delivery;
  if (mode === 'Realtime' && points.length !== 1)
    throw new DeliveryBuildError('WEBHOOK_POINTS', `a Realtime delivery carries exactly one point (this one has ${points.length})`);
  if (mode === 'Batch' && points.length === 0)
    throw new DeliveryBuildError('WEBHOOK_POINTS', 'a Batch delivery carries at least one point (this one has none)');
  const metadata = `{"Company":${JSON.stringify(String(delivery.companyId))},"GatewayId":${JSON.stringify(delivery.gatewayId)},"Measurement":${JSON.stringify(delivery.measurement)}}`;
  const payload = mode === 'Realtime' ? `"Point":${points.join('')}` : `"Points":[${points.join(',')}]`;
  return `{"Timestamp":${JSON.stringify(sentAt)},"Metadata":${metadata},${payload}}`;
}

function isStringRecord(value: unknown): value is Record<string, string> {
  return value !== null && typeof value === 'object' && !Array.isArray(value) && Object.values(value).every((v) => typeof v === 'string');
}

function parseCustomHeaders(text: string | null): Record<string, string> {
  if (text === null || text.trim() === '') return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new DeliveryBuildError('WEBHOOK_CUSTOM_HEADERS', 'the stored customHeaders are not valid JSON', { cause: error });
  }
  if (!isStringRecord(value)) throw new DeliveryBuildError('WEBHOOK_CUSTOM_HEADERS', 'the stored customHeaders are not a JSON object of strings');
  return value;
}

function credentialError(delivery: OutgoingDelivery, problem: string, cause?: unknown): DeliveryBuildError {
  return new DeliveryBuildError('WEBHOOK_CREDENTIALS', `the stored credentials for authType ${delivery.authType} ${problem}`, { cause });
}

/** The auth headers of the configuration's authType, and the secret values in them. */
function authHeaders(delivery: OutgoingDelivery, decrypt: DecryptCredentials): { headers: Record<string, string>; secrets: string[] } {
  if (delivery.authType === 'None') return { headers: {}, secrets: [] };
  if (delivery.authPayloadEncrypted === null) throw credentialError(delivery, 'are missing');
  let plaintext: string;
  try {
    plaintext = decrypt(delivery.authPayloadEncrypted, delivery.configId);
  } catch (error) {
    // The vault's messages name a key id or a format, never the plaintext; the stored text is kept out all the same.
    const reason = error instanceof Error ? error.message.replaceAll(delivery.authPayloadEncrypted, '[stored value]').slice(0, 200) : 'unknown error';
    throw credentialError(delivery, `could not be decrypted (${reason})`, error);
  }
  let payload: unknown;
  try {
    payload = JSON.parse(plaintext);
  } catch {
    // No cause: a JSON error quotes the text it failed on.
    throw credentialError(delivery, 'are not a JSON object');
  }
  if (payload === null || typeof payload !== 'object' || Array.isArray(payload)) throw credentialError(delivery, 'are not a JSON object');
  const fields = payload as Record<string, unknown>;
  const text = (key: string): string => {
    const value = fields[key];
    if (typeof value !== 'string' || value === '') throw credentialError(delivery, `have no ${key}`);
    return value;
  };
  switch (delivery.authType) {
    case 'Bearer': {
      const token = text('token');
      return { headers: { authorization: `Bearer ${token}` }, secrets: [token, `Bearer ${token}`] };
    }
    case 'ApiKey': {
      const key = text('apiKeyValue');
      return { headers: { 'x-api-key': key }, secrets: [key] };
    }
    case 'Basic': {
      const username = text('username');
      const password = text('password');
      const encoded = Buffer.from(`${username}:${password}`, 'utf8').toString('base64');
      return { headers: { authorization: `Basic ${encoded}` }, secrets: [password, encoded] };
    }
    case 'Custom': {
      if (!isStringRecord(fields.headers)) throw credentialError(delivery, 'have no headers object of strings');
      const headers = Object.entries(fields.headers).map(([name, value]) => [name.toLowerCase(), value] as const);
      return { headers: Object.fromEntries(headers), secrets: headers.map(([, value]) => value) };
    }
  }
}

/** The keys of the signing secrets that sign the delivery at `sentAt`. */
function signingKeys(delivery: OutgoingDelivery, sentAtMs: number, keys: SigningKeys): KeyObject[] {
  return signingSecretsAt(delivery.signingSecrets, sentAtMs).map((encrypted) => {
    try {
      return keys.keyOf(encrypted, signingSecretBinding(delivery.configId));
    } catch (error) {
      const reason = error instanceof Error ? error.message.replaceAll(encrypted, '[stored value]').slice(0, 200) : 'unknown error';
      throw new DeliveryBuildError('WEBHOOK_SIGNING_SECRET', `the stored signing secret could not be used (${reason})`, { cause: error });
    }
  });
}

export interface BuildContext {
  /** When the attempt is made, ISO 8601 UTC with milliseconds: the body's Timestamp and X-Webhook-Timestamp. */
  readonly sentAt: string;
  readonly decryptCredentials: DecryptCredentials;
  /** Default true: the Standard Webhooks id, timestamp and signature. */
  readonly sign?: boolean;
  /** Where the signing keys come from: decrypted each time by default; the sender keeps them (createSigningKeys). */
  readonly signingKeys?: SigningKeys;
}

/**
 * The body and headers of one attempt. Later sources win over earlier ones on a name clash (the API
 * refuses such clashes when a configuration is written): custom headers, then auth, then the
 * platform's, then the Standard Webhooks headers, which every delivery carries.
 */
export function buildDeliveryRequest(delivery: OutgoingDelivery, context: BuildContext): DeliveryRequest {
  const body = buildEnvelopeBody(delivery, context.sentAt);
  // A Map, not an object, while names from the configuration are added: no name can reach a prototype.
  const headers = new Map<string, string>();
  for (const [name, value] of Object.entries(parseCustomHeaders(delivery.customHeaders))) headers.set(name.toLowerCase(), value);
  const auth = authHeaders(delivery, context.decryptCredentials);
  for (const [name, value] of Object.entries(auth.headers)) headers.set(name, value);
  headers.set('content-type', 'application/json');
  if (delivery.includeMetadataHeaders) {
    headers.set('user-agent', deliveryUserAgent);
    headers.set('x-webhook-timestamp', context.sentAt);
  }
  if (delivery.includeRetryHeader) headers.set('x-webhook-retry-count', String(delivery.attempt));
  if (context.sign === false) return { body, headers: Object.fromEntries(headers), secrets: auth.secrets };
  const sentAtMs = Date.parse(context.sentAt);
  const timestamp = Math.floor(sentAtMs / 1000);
  const keys = signingKeys(delivery, sentAtMs, context.signingKeys ?? uncachedSigningKeys(context.decryptCredentials));
  headers.set('webhook-id', delivery.webhookId);
  headers.set('webhook-timestamp', String(timestamp));
  headers.set('webhook-signature', signatureHeader(keys, delivery.webhookId, timestamp, body));
  // The signing secret is never sent, so no error or echoed answer can hold it: only the credentials are kept out.
  return { body, headers: Object.fromEntries(headers), secrets: auth.secrets };
}
