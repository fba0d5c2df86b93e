// The fields of a Register or Heartbeat request, checked: each problem is INVALID_ARGUMENT naming
// the field. A callback address must be loopback unless the operator trusts the network, since the
// gateway sends delegated tokens to it without TLS.
import { clip, isLoopbackHost } from '@platform/tool-sdk/internal';
import type { RegisterRequest__Output } from '@platform/proto';
import { RegistryError } from './registry-errors.ts';

export interface RegistrationFields {
  readonly serviceName: string;
  readonly callbackAddress: string;
  /** min(asked, the gateway's maximum), in seconds. */
  readonly grantedTtlSeconds: number;
}

export interface RegistrationRules {
  readonly maxTtlSeconds: number;
  readonly grpcPlaintextOffLoopback: boolean;
}

export const serviceNamePattern = /^[a-z0-9][a-z0-9-]{0,63}$/;
// A host name or IPv4 address, or an IPv6 address in brackets; then a port.
const hostPortPattern = /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]{1,253}):([0-9]{1,5})$/;

const invalid = (field: string, problem: string) => new RegistryError('INVALID_FIELD', `${field} ${problem}`);

/** What a refusal may quote of a value the caller sent: short, on one line. */
const quoted = (value: string) => JSON.stringify(clip(value, 80));

export function readRegistrationFields(request: RegisterRequest__Output, rules: RegistrationRules): RegistrationFields {
  const { serviceName, callbackAddress, ttlSeconds } = request;
  if (!serviceName) throw invalid('service_name', 'is required');
  if (!serviceNamePattern.test(serviceName)) {
    throw invalid('service_name', `must be 1 to 64 lower-case letters, digits and dashes, starting with a letter or digit (got ${quoted(serviceName)})`);
  }

  if (!callbackAddress) throw invalid('callback_address', 'is required');
  const match = hostPortPattern.exec(callbackAddress);
  const port = Number(match?.[2]);
  if (!match?.[1] || !(port >= 1 && port <= 65_535)) {
    throw invalid('callback_address', `must be host:port with a port from 1 to 65535 (got ${quoted(callbackAddress)})`);
  }
  if (!rules.grpcPlaintextOffLoopback && !isLoopbackHost(match[1].toLowerCase())) {
    throw invalid(
      'callback_address',
      `must be a loopback address such as 127.0.0.1:${port} (got ${quoted(callbackAddress)}): the gateway sends delegated tokens to it without TLS; ` +
        'the gateway allows other addresses only with GRPC_PLAINTEXT_OFF_LOOPBACK=true, on a network its operator trusts',
    );
  }

  if (!Number.isInteger(ttlSeconds) || ttlSeconds < 1) throw invalid('ttl_seconds', 'must be 1 or more');
  return { serviceName, callbackAddress, grantedTtlSeconds: Math.min(ttlSeconds, rules.maxTtlSeconds) };
}

/** The registration id of a Heartbeat or Deregister. */
export function readRegistrationId(registrationId: string): string {
  if (!registrationId) throw invalid('registration_id', 'is required');
  return registrationId;
}
