import { status } from '@grpc/grpc-js';
import { describe, expect, it } from 'vitest';
import { maxDetailsLength, RegistryError, registryErrorCatalog, statusOf } from './registry-errors.ts';

describe('the registry’s refusals', () => {
  it('each answer with the status of their code: a refused token is never reported as an outage, nor an outage as a refused token', () => {
    expect(Object.fromEntries(Object.entries(registryErrorCatalog).map(([code, entry]) => [code, status[entry.status]]))).toEqual({
      APP_TOKEN_MISSING: 'UNAUTHENTICATED',
      APP_TOKEN_REFUSED: 'UNAUTHENTICATED',
      APP_NOT_LINKED: 'PERMISSION_DENIED',
      NOT_A_TOOL_PUBLISHER: 'PERMISSION_DENIED',
      APP_NOT_ALLOWED: 'PERMISSION_DENIED',
      PLATFORM_UNAVAILABLE: 'UNAVAILABLE',
      INVALID_FIELD: 'INVALID_ARGUMENT',
      REGISTRATION_NOT_FOUND: 'NOT_FOUND',
      REGISTRATION_OF_ANOTHER_APP: 'PERMISSION_DENIED',
      CALLBACK_NETWORK_NOT_ALLOWED: 'FAILED_PRECONDITION',
      SERVICE_UNREACHABLE: 'UNAVAILABLE',
      TOOLS_NOT_EXPOSABLE: 'FAILED_PRECONDITION',
      APP_KEY_NOT_PREFIXABLE: 'FAILED_PRECONDITION',
      TOO_MANY_REGISTRATIONS_OF_APP: 'RESOURCE_EXHAUSTED',
      CATALOG_LIMIT: 'RESOURCE_EXHAUSTED',
      TOO_MANY_REGISTRATIONS: 'RESOURCE_EXHAUSTED',
      CALLER_GONE: 'CANCELLED',
      REGISTRY_CLOSED: 'UNAVAILABLE',
      STORE_UNAVAILABLE: 'UNAVAILABLE',
      INTERNAL: 'INTERNAL',
    });
  });

  it('answer with their own message, clipped to a bounded length', () => {
    expect(statusOf(new RegistryError('INVALID_FIELD', 'ttl_seconds must be 1 or more'))).toEqual({
      code: status.INVALID_ARGUMENT,
      details: 'ttl_seconds must be 1 or more',
      outcome: 'INVALID_FIELD',
    });
    expect(statusOf(new RegistryError('TOOLS_NOT_EXPOSABLE', 'x'.repeat(5_000))).details).toHaveLength(maxDetailsLength);
  });

  it('hide anything unexpected behind INTERNAL and a generic message', () => {
    expect(statusOf(new Error('database password is hunter2'))).toEqual({
      code: status.INTERNAL,
      details: 'The registry failed unexpectedly; the gateway logged the cause.',
      outcome: 'INTERNAL',
    });
  });
});
