import { status } from '@grpc/grpc-js';
import { thrownBy } from '@platform/devtools/thrown';
import { describe, expect, it } from 'vitest';
import { readRegistrationFields, readRegistrationId } from './registration-fields.ts';
import { RegistryError } from './registry-errors.ts';

const rules = { maxTtlSeconds: 60, grpcPlaintextOffLoopback: false };
const request = { serviceName: 'webhook-tools', callbackAddress: '127.0.0.1:50051', ttlSeconds: 30 };

const refusal = (read: () => unknown): RegistryError => thrownBy(read, RegistryError);

describe('readRegistrationFields', () => {
  it('grants the time to live asked for, up to the maximum', () => {
    expect(readRegistrationFields(request, rules)).toEqual({ serviceName: 'webhook-tools', callbackAddress: '127.0.0.1:50051', grantedTtlSeconds: 30 });
    expect(readRegistrationFields({ ...request, ttlSeconds: 86_400 }, rules).grantedTtlSeconds).toBe(60);
  });

  it.each(['127.0.0.1:1', '127.8.9.10:65535', 'localhost:50051', 'LOCALHOST:50051', '[::1]:50051'])('takes the loopback address %s', (callbackAddress) => {
    expect(readRegistrationFields({ ...request, callbackAddress }, rules).callbackAddress).toBe(callbackAddress);
  });

  it.each([
    ['service_name', { serviceName: '' }, 'service_name is required'],
    ['service_name', { serviceName: 'Webhook_Tools' }, 'service_name must be 1 to 64 lower-case letters'],
    ['service_name', { serviceName: '-tools' }, 'service_name must be'],
    ['service_name', { serviceName: 'x'.repeat(65) }, 'service_name must be'],
    ['callback_address', { callbackAddress: '' }, 'callback_address is required'],
    ['callback_address', { callbackAddress: '127.0.0.1' }, 'callback_address must be host:port'],
    ['callback_address', { callbackAddress: '127.0.0.1:0' }, 'callback_address must be host:port with a port from 1 to 65535'],
    ['callback_address', { callbackAddress: '127.0.0.1:70000' }, 'callback_address must be host:port'],
    ['callback_address', { callbackAddress: 'dns:///127.0.0.1:50051' }, 'callback_address must be host:port'],
    ['callback_address', { callbackAddress: 'http://127.0.0.1:50051' }, 'callback_address must be host:port'],
    ['ttl_seconds', { ttlSeconds: 0 }, 'ttl_seconds must be 1 or more'],
  ])('refuses a bad %s with INVALID_ARGUMENT naming it (%j)', (_field, change, message) => {
    const error = refusal(() => readRegistrationFields({ ...request, ...change }, rules));

    expect(error.status).toBe(status.INVALID_ARGUMENT);
    expect(error.message).toContain(message);
  });

  it.each(['10.1.2.3:50051', 'tools.example.com:443', '0.0.0.0:50051', '127.999.0.1:50051', '[2001:db8::1]:50051'])(
    'refuses the address %s off loopback: delegated tokens would cross the network in plaintext',
    (callbackAddress) => {
      const error = refusal(() => readRegistrationFields({ ...request, callbackAddress }, rules));

      expect(error.status).toBe(status.INVALID_ARGUMENT);
      expect(error.message).toMatch(/callback_address must be a loopback address .*without TLS/);
    },
  );

  it('takes an address off loopback when the operator trusts the network', () => {
    const fields = readRegistrationFields({ ...request, callbackAddress: 'tools.internal:50051' }, { ...rules, grpcPlaintextOffLoopback: true });

    expect(fields.callbackAddress).toBe('tools.internal:50051');
  });

  it('quotes a long bad value only in part', () => {
    const error = refusal(() => readRegistrationFields({ ...request, serviceName: 'X'.repeat(500) }, rules));

    expect(error.message.length).toBeLessThan(300);
  });
});

describe('readRegistrationId', () => {
  it('refuses an empty registration id with INVALID_ARGUMENT naming the field', () => {
    expect(refusal(() => readRegistrationId('')).message).toBe('registration_id is required');
    expect(readRegistrationId('r-1')).toBe('r-1');
  });
});
