// What a configuration may put into delivery headers: authPayload with exactly the keys its
// authType needs, and customHeaders as a JSON object of string values whose names are neither
// reserved by the deliverer, hop-by-hop, nor the header the authType sets.
import { invalid } from './errors.ts';
import type { AuthType } from './schemas.ts';

/** RFC 9110 field-name (token) and a field value without control characters. */
const headerName = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,128}$/;
const headerValue = /^[\t\x20-\x7e\x80-\xff]{0,8192}$/;

/** Headers the deliverer sets or HTTP owns; a configuration may not set them. */
const reserved = new Set([
  'host', 'content-length', 'content-type', 'transfer-encoding', 'connection', 'keep-alive', 'te', 'trailer',
  'upgrade', 'proxy-authorization', 'proxy-authenticate', 'proxy-connection', 'user-agent', 'expect', 'date',
]);

function isReserved(name: string): boolean {
  const lower = name.toLowerCase();
  return reserved.has(lower) || lower.startsWith('x-webhook-');
}

function parseObject(field: string, text: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw invalid(field, 'must be a JSON object serialized as a string (it is not valid JSON)');
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw invalid(field, 'must be a JSON object serialized as a string');
  return value as Record<string, unknown>;
}

function exactKeys(field: string, object: Record<string, unknown>, keys: readonly string[], authType: AuthType): void {
  const extra = Object.keys(object).filter((key) => !keys.includes(key));
  if (extra.length > 0) throw invalid(field, `has ${extra.map((k) => JSON.stringify(k)).join(', ')}, which authType ${authType} does not take (it takes ${keys.join(', ')})`);
  for (const key of keys) {
    const value = object[key];
    if (key === 'headers') continue;
    if (typeof value !== 'string' || value === '') throw invalid(field, `needs a non-empty string ${key} for authType ${authType}`);
    if (!headerValue.test(value)) throw invalid(field, `${key} must not contain control characters`);
  }
}

function checkHeaderMap(field: string, value: unknown, what: string): Record<string, string> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw invalid(field, `${what} must be a JSON object of header names to string values`);
  const entries = Object.entries(value as Record<string, unknown>);
  const seen = new Set<string>();
  for (const [name, headerText] of entries) {
    if (!headerName.test(name)) throw invalid(field, `${JSON.stringify(name)} is not a valid header name`);
    if (typeof headerText !== 'string' || !headerValue.test(headerText)) throw invalid(field, `the value of ${name} must be a string without control characters`);
    if (isReserved(name)) throw invalid(field, `${name} is set by the deliverer or by HTTP and cannot be configured`);
    if (seen.has(name.toLowerCase())) throw invalid(field, `${name} is given twice`);
    seen.add(name.toLowerCase());
  }
  return Object.fromEntries(entries) as Record<string, string>;
}

/** The header names an authType's payload sets on each delivery (lower case). */
export function authHeaderNames(authType: AuthType, payload: Record<string, unknown> | null): string[] {
  switch (authType) {
    case 'Bearer':
    case 'Basic':
      return ['authorization'];
    case 'ApiKey':
      return ['x-api-key'];
    case 'Custom':
      return Object.keys((payload?.headers as Record<string, string> | undefined) ?? {}).map((n) => n.toLowerCase());
    case 'None':
      return [];
  }
}

/** Validates a new authPayload for its authType; returns the parsed object (null for None). */
export function checkAuthPayload(authType: AuthType, text: string | null): Record<string, unknown> | null {
  if (authType === 'None') {
    if (text !== null && text !== '') throw invalid('authPayload', 'must be omitted when authType is None');
    return null;
  }
  if (text === null || text === '') throw invalid('authPayload', `is required when authType is ${authType}`);
  const object = parseObject('authPayload', text);
  switch (authType) {
    case 'Bearer':
      exactKeys('authPayload', object, ['token'], authType);
      break;
    case 'ApiKey':
      exactKeys('authPayload', object, ['apiKeyValue'], authType);
      break;
    case 'Basic':
      exactKeys('authPayload', object, ['username', 'password'], authType);
      if (String(object.username).includes(':')) throw invalid('authPayload', 'username must not contain ":" (Basic authentication joins it with the password by one)');
      break;
    case 'Custom': {
      exactKeys('authPayload', object, ['headers'], authType);
      const headers = checkHeaderMap('authPayload', object.headers, 'headers');
      if (Object.keys(headers).length === 0) throw invalid('authPayload', 'headers must name at least one header for authType Custom');
      break;
    }
  }
  return object;
}

/** Validates customHeaders; none may collide with what the authType sets. Returns the stored text or null. */
export function checkCustomHeaders(text: string | null | undefined, authHeaders: readonly string[]): string | null {
  if (text === undefined || text === null || text.trim() === '') return null;
  const headers = checkHeaderMap('customHeaders', parseObject('customHeaders', text), 'customHeaders');
  const clash = Object.keys(headers).find((name) => authHeaders.includes(name.toLowerCase()));
  if (clash) throw invalid('customHeaders', `${clash} is set by the configured authType and cannot also be a custom header`);
  return JSON.stringify(headers);
}
