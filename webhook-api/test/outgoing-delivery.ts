// An OutgoingDelivery for the sender's and envelope's tests: one Realtime point of company 42,
// configuration cfg-1, no credentials, every metadata header on.
import type { OutgoingDelivery } from '../src/delivery/outgoing.ts';

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
    ...overrides,
  };
}
