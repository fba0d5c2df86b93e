// What a configuration may put into delivery headers: authPayload with exactly the keys its
// authType needs, and customHeaders as a bounded JSON object of string values. No header may break
// a JSON delivery (body, host, forwarding, hop-by-hop, the deliverer's own), and customHeaders,
// returned in clear on every read, may not carry credentials: those go to the encrypted authPayload.
import type { AuthType } from '../store/records.ts';
import { invalid } from './invalid-input.ts';
import { firstDuplicateKey } from './json-duplicate-keys.ts';

/** At most this many headers in customHeaders, and in the headers of authType Custom. */
export const maxHeaderCount = 20;
/** A header name is at most this long. */
export const maxHeaderNameLength = 128;
/** A customHeaders value is at most this long. */
export const maxHeaderValueLength = 1024;
/** A credential (Bearer token, apiKeyValue, Basic username or password, a Custom header value) is at most this long: JWTs outgrow 1024. */
export const maxCredentialLength = 4096;

/** RFC 9110 field-name (token); the length is checked apart so the message can say so. */
const headerName = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/**
 * A field value: visible ASCII, space, tab and the printable part of obs-text (U+00A0 to U+00FF).
 * No control characters: not C0 (CR, LF, NUL), DEL, nor C1 (U+0080 to U+009F, NEL among them),
 * which some clients and receivers read as a line break.
 */
const headerValue = /^[\t\x20-\x7e\xa0-\xff]*$/;

const hopByHop = new Set(['connection', 'keep-alive', 'te', 'trailer', 'transfer-encoding', 'upgrade', 'http2-settings']);
const routing = new Set(['host', 'forwarded', 'via', 'x-real-ip', 'x-client-ip', 'true-client-ip']);
/** The deliverer's own headers, Standard Webhooks' among them. */
const deliverers = new Set(['user-agent', 'expect', 'date', 'webhook-id', 'webhook-timestamp', 'webhook-signature']);

/** Why a header would break a JSON delivery, or undefined when it would not. */
function deliveryConflict(lower: string): string | undefined {
  if (lower.startsWith('content-')) return 'it describes the body, which the deliverer sends as JSON';
  if (hopByHop.has(lower) || lower.startsWith('proxy-')) return 'it is a hop-by-hop or proxy header, which HTTP does not forward';
  if (routing.has(lower) || lower.startsWith('x-forwarded-')) return 'it is set by HTTP or by proxies on the way';
  if (deliverers.has(lower) || lower.startsWith('x-webhook-')) return 'the deliverer sets it';
  return undefined;
}

/** Parts of a name that mark a credential wherever they appear; matched with `-`, `_` and `.` removed, so api-key and api_key match apikey. */
const credentialParts = [
  'auth',
  'token',
  'secret',
  'password',
  'passwd',
  'passphrase',
  'pwd',
  'apikey',
  'accesskey',
  'privatekey',
  'subscriptionkey',
  'session',
  'cookie',
  'credential',
  'creds',
  'signature',
  'bearer',
  'jwt',
];

/** Words that mark a credential only as a whole word of the name: X-Pass but not X-Passenger, X-Sig but not X-Signal. */
const credentialWords = new Set(['pass', 'sig', 'psk']);

/**
 * Whether a header name looks like it carries a credential (case-insensitive): it contains a
 * credential part, has a credential word, or ends in "key" (X-Functions-Key, Ocp-Apim-Subscription-Key).
 * Words are split at `-`, `_`, `.` and a lower-case letter or digit followed by a capital, with trailing digits dropped.
 */
export function looksLikeCredential(name: string): boolean {
  const squashed = name.toLowerCase().replace(/[-_.]/g, '');
  if (squashed.replace(/[0-9]+$/, '').endsWith('key') || credentialParts.some((part) => squashed.includes(part))) return true;
  const words = name.split(/[-_.]|(?<=[a-z0-9])(?=[A-Z])/).map((word) => word.toLowerCase().replace(/[0-9]+$/, ''));
  return words.some((word) => credentialWords.has(word));
}

/** An authorization scheme and its credentials (after the leading whitespace HTTP strips). */
const authorizationValue = /^[\t ]*(?:bearer|basic|token|digest)[\t ]/i;
/** A JWT (JWS or JWE) anywhere in a value: base64url parts joined by dots, the first a JSON object ({" is eyJ). */
const jwtInValue = /(?:^|[^A-Za-z0-9_-])eyJ[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*/;

/** Whether a header value looks like it is a credential, whatever the header is named. */
function valueLooksLikeCredential(value: string): boolean {
  return authorizationValue.test(value) || jwtInValue.test(value);
}

/** The authType that sets this header itself, when there is one. */
function matchingAuthType(lower: string): string | undefined {
  if (lower === 'authorization') return 'Bearer or Basic';
  if (lower === 'x-api-key') return 'ApiKey';
  return undefined;
}

/** A name safe to put in a message: a valid field name of bounded length (anything else might be a credential typed in the wrong place). */
function isEchoableName(name: string): boolean {
  return name.length <= maxHeaderNameLength && headerName.test(name);
}

/** Parses a JSON object sent as a string, refusing a key given twice in any of its objects (JSON.parse would keep the last). */
function parseObject(field: string, text: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw invalid(field, 'must be a JSON object serialized as a string (it is not valid JSON)');
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw invalid(field, 'must be a JSON object serialized as a string');
  const duplicate = firstDuplicateKey(text);
  if (duplicate !== undefined) throw invalid(field, `${isEchoableName(duplicate) ? duplicate : 'a name'} is given twice`);
  return value as Record<string, unknown>;
}

/** A credential string: present, bounded, and fit for a header (never echoed). */
function checkCredential(field: string, key: string, value: unknown, authType: AuthType): void {
  if (typeof value !== 'string' || value === '') throw invalid(field, `needs a non-empty string ${key} for authType ${authType}`);
  if (value.length > maxCredentialLength) throw invalid(field, `${key} must be at most ${maxCredentialLength} characters`);
  if (!headerValue.test(value)) throw invalid(field, `${key} must not contain control characters`);
}

function exactKeys(field: string, object: Record<string, unknown>, keys: readonly string[], authType: AuthType): void {
  const extra = Object.keys(object).filter((key) => !keys.includes(key));
  // The unexpected keys are counted, never quoted: a credential pasted where a key belongs would come back in the error.
  if (extra.length > 0) {
    throw invalid(
      field,
      `has ${extra.length === 1 ? 'a key' : `${extra.length} keys`} authType ${authType} does not take (it takes exactly ${keys.join(', ')})`,
    );
  }
  for (const key of keys) {
    if (key !== 'headers') checkCredential(field, key, object[key], authType);
  }
}

type HeaderUse = 'customHeaders' | 'Custom';

const objectMachinery = new Set(['__proto__', 'constructor', 'prototype', '__definegetter__', '__definesetter__', '__lookupgetter__', '__lookupsetter__']);

/** Checks one name of a header map; names are echoed only once they are known to be valid tokens. */
function checkName(field: string, name: string, use: HeaderUse): void {
  if (name.length > maxHeaderNameLength) throw invalid(field, `header names must be at most ${maxHeaderNameLength} characters`);
  if (!headerName.test(name)) throw invalid(field, "a header name is not a valid HTTP field name (letters, digits and !#$%&'*+-.^_`|~ only)");
  const lower = name.toLowerCase();
  // Valid tokens, but names of JavaScript's object machinery: a header map built from them could change its prototype.
  if (objectMachinery.has(lower)) throw invalid(field, `${name} cannot be a header name`);
  const conflict = deliveryConflict(lower);
  if (conflict !== undefined) throw invalid(field, `${name} cannot be configured: ${conflict}`);
  if (use === 'customHeaders' && looksLikeCredential(name)) {
    const matching = matchingAuthType(lower);
    throw invalid(
      field,
      `${name} looks like a credential, and customHeaders are returned in clear on every read: send it with authType Custom, whose headers are stored encrypted${matching === undefined ? '' : ` (or use authType ${matching})`}`,
    );
  }
}

function checkHeaderMap(field: string, value: unknown, use: HeaderUse): Record<string, string> {
  const what = use === 'Custom' ? 'headers' : 'customHeaders';
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    throw invalid(field, `${what} must be a JSON object of header names to string values`);
  const entries = Object.entries(value as Record<string, unknown>);
  if (entries.length > maxHeaderCount) throw invalid(field, `${what} may hold at most ${maxHeaderCount} headers`);
  const maxValue = use === 'Custom' ? maxCredentialLength : maxHeaderValueLength;
  const seen = new Set<string>();
  for (const [name, text] of entries) {
    checkName(field, name, use);
    if (seen.has(name.toLowerCase())) throw invalid(field, `${name} is given twice`);
    seen.add(name.toLowerCase());
    if (typeof text !== 'string') throw invalid(field, `the value of ${name} must be a string`);
    if (text.length > maxValue) throw invalid(field, `the value of ${name} must be at most ${maxValue} characters`);
    if (!headerValue.test(text)) throw invalid(field, `the value of ${name} must be a string without control characters`);
    if (use === 'customHeaders' && valueLooksLikeCredential(text))
      throw invalid(
        field,
        `the value of ${name} looks like a credential (an authorization such as Bearer or Basic, or a JWT), and customHeaders are returned in clear on every read: send it with authType Custom, whose headers are stored encrypted, or use authType Bearer, Basic or ApiKey`,
      );
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
      if (String(object.username).includes(':'))
        throw invalid('authPayload', 'username must not contain ":" (Basic authentication joins it with the password by one)');
      break;
    case 'Custom': {
      exactKeys('authPayload', object, ['headers'], authType);
      const headers = checkHeaderMap('authPayload', object.headers, 'Custom');
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
