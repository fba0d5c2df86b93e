// What the deliverer hands the sender for one attempt, and what the sender answers: the contract
// between the queue (which decides what is due and records outcomes) and the HTTP side (which builds
// the envelope and headers, sends, and sorts the response into delivered, retry or dropped).
import type { ClaimedDelivery } from '../queue/delivery-queue.ts';
import type { AuthType, DeliveryMode, HttpMethod, SigningSecrets } from '../store/records.ts';

/** Decrypts what the CredentialVault stored, bound to what it was encrypted for (CredentialVault#decrypt). */
export type DecryptCredentials = (encrypted: string, boundTo: string) => string;

/** One request to make: the configuration as it is now (read when the work was claimed) and the points. */
export interface OutgoingDelivery {
  /** The configuration's id; also what its encrypted credentials are bound to. */
  readonly configId: string;
  /** The owning company: `Metadata.Company` (as a string). */
  readonly companyId: number;
  readonly url: string;
  readonly method: HttpMethod;
  readonly authType: AuthType;
  /** authPayload as the CredentialVault stored it; decrypted only when the request is built. */
  readonly authPayloadEncrypted: string | null;
  /** customHeaders as stored: a JSON object of names to values, or null. */
  readonly customHeaders: string | null;
  readonly includeMetadataHeaders: boolean;
  readonly includeRetryHeader: boolean;
  readonly mode: DeliveryMode;
  readonly gatewayId: string;
  readonly measurement: string;
  /**
   * Each delivered point as JSON text, already in its delivered shape
   * ({"Measurement":...,"Fields":{...},"Tags":{...},"UtcTimestamp":"...","DeviceId":...,"ConnectionTag":"..."}): Realtime one, Batch one or more.
   */
  readonly points: readonly string[];
  /** 0 on the first attempt, then 1, 2, ...: `X-Webhook-Retry-Count`. */
  readonly attempt: number;
  /** `webhook-id`: the same on every attempt of the delivery and on a resend of it. */
  readonly webhookId: string;
  /** The configuration's signing secrets as the CredentialVault stored them; decrypted only when the request is built. */
  readonly signingSecrets: SigningSecrets;
}

/**
 * What one attempt came to, in the words of the attempt log: delivered, dropped, or retrying (which
 * the retry schedule may still turn into failed). `durationMs` is from the start of the request to
 * its end (or failure).
 */
export type AttemptResult =
  /** 2xx. */
  | { readonly outcome: 'delivered'; readonly status: number; readonly durationMs: number; readonly responsePrefix: string }
  /** 429, 5xx, a timeout, a reset, a refused connection: try again; `retryAfterMs` from the response's Retry-After. */
  | {
      readonly outcome: 'retrying';
      readonly status: number | null;
      readonly error: string;
      readonly retryAfterMs: number | undefined;
      readonly durationMs: number;
      readonly responsePrefix: string;
    }
  /** 4xx other than 429, a refused target, a request that cannot be built: never tried again. */
  | { readonly outcome: 'dropped'; readonly status: number | null; readonly error: string; readonly durationMs: number; readonly responsePrefix: string };

export interface WebhookSender {
  /** Makes one attempt; never throws for anything the endpoint or the network did. `signal` aborts it (shutdown). */
  send(delivery: OutgoingDelivery, signal?: AbortSignal): Promise<AttemptResult>;
  /** Closes the connection pools. */
  close(): Promise<void>;
}

/** What the sender needs of a claimed delivery. */
export function toOutgoing(d: ClaimedDelivery): OutgoingDelivery {
  const c = d.config;
  return {
    configId: c.id,
    companyId: c.companyId,
    url: c.url,
    method: c.method,
    authType: c.authType,
    authPayloadEncrypted: c.authPayloadEncrypted,
    customHeaders: c.customHeaders,
    includeMetadataHeaders: c.includeMetadataHeaders,
    includeRetryHeader: c.includeRetryHeader,
    mode: d.mode,
    gatewayId: d.gatewayId,
    measurement: d.measurement,
    points: d.points,
    attempt: d.attempts,
    webhookId: d.webhookId,
    signingSecrets: c.signingSecrets,
  };
}
