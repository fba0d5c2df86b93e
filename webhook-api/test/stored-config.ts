// A StoredConfig for the store's, the queue's and the deliverer's tests: a Realtime POST of company 1
// to a receiver that is never called, no credentials, every header on.
import { randomUUID } from 'node:crypto';
import { healthyEndpoint, type StoredConfig } from '../src/store/records.ts';

export function storedConfig(overrides: Partial<StoredConfig> = {}): StoredConfig {
  return {
    id: randomUUID(),
    companyId: 1,
    name: 'hook',
    url: 'https://receiver.example/hook',
    method: 'POST',
    deliveryMode: 'Realtime',
    authType: 'None',
    authPayloadEncrypted: null,
    customHeaders: null,
    includeMetadataHeaders: true,
    includeRetryHeader: true,
    signingSecrets: { current: 'v1.test.iv.tag.signing-secret', previous: null, previousUntil: null },
    status: 'Active',
    disabledReason: null,
    disabledAt: null,
    rateLimitPerSecond: null,
    ordering: 'None',
    health: healthyEndpoint,
    ...overrides,
  };
}
