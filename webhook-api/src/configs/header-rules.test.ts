// The header rules: credential-looking and delivery-breaking names, the bounds, and messages that never echo a value.
import { thrownBy } from '@platform/devtools/thrown';
import { describe, expect, it } from 'vitest';
import {
  checkAuthPayload,
  checkCustomHeaders,
  looksLikeCredential,
  maxCredentialLength,
  maxHeaderCount,
  maxHeaderNameLength,
  maxHeaderValueLength,
} from './header-rules.ts';
import { InvalidInputError } from './invalid-input.ts';

/** The error a check throws: its field and message. */
function refusal(check: () => unknown): { field: string | undefined; message: string } {
  const { field, message } = thrownBy(check, InvalidInputError);
  return { field, message };
}

const customHeaders = (headers: Record<string, unknown>) => refusal(() => checkCustomHeaders(JSON.stringify(headers), []));
const customAuth = (headers: Record<string, unknown>) => refusal(() => checkAuthPayload('Custom', JSON.stringify({ headers })));
const headersOf = (count: number) => Object.fromEntries(Array.from({ length: count }, (_, i) => [`X-Tenant-${i}`, 'a']));

describe('the delivery header rules', () => {
  it('bounds headers at 20, names at 128 characters, values at 1024 and credentials at 4096', () => {
    expect([maxHeaderCount, maxHeaderNameLength, maxHeaderValueLength, maxCredentialLength]).toEqual([20, 128, 1024, 4096]);
  });

  it.each([
    'Authorization',
    'Proxy-Authorization',
    'Cookie',
    'Set-Cookie',
    'X-API-Key',
    'X-Api-Key',
    'api_key',
    'X-Auth-Token',
    'X-Amz-Security-Token',
    'X-Client-Secret',
    'X-Password',
    'X-Passwd',
    'X-Session-Id',
    'X-Credentials',
    'X-Hub-Signature-256',
    'X-Access-Key',
    'X-Private.Key',
    'X-JWT',
    'X-Bearer',
    'Ocp-Apim-Subscription-Key',
    'X-Subscription-Key-V2',
    'X-Functions-Key',
    'X-Key',
    'X-Master-Key-2',
    'X-Passphrase',
    'X-Pwd',
    'X-User-Pwd',
    'X-Pass',
    'X-User-Pass',
    'X-UserPass',
    'X-Sig',
    'X-Sig256',
    'X-Body-Sig',
    'X-PSK',
    'X-Creds',
    'X-Api-Creds',
  ])('takes %s for a credential header', (name) => {
    expect(looksLikeCredential(name)).toBe(true);
  });

  it.each([
    'X-Tenant',
    'Accept',
    'X-Region',
    'X-Correlation-Id',
    'X-Device-Group',
    'If-Match',
    'X-Request-Source',
    'X-Passenger-Count',
    'X-Bypass-Cache',
    'X-Compass-Heading',
    'X-Design',
    'X-Signal-Strength',
    'X-Assignment',
    'X-Sigma',
    'X-Keyboard-Layout',
    'X-Key-Id',
    'X-Topsk',
  ])('takes %s for an ordinary header', (name) => {
    expect(looksLikeCredential(name)).toBe(false);
  });

  describe('customHeaders', () => {
    it('refuses a credential header, naming authType Custom and the matching authType, never the value', () => {
      for (const [name, matching] of [
        ['Authorization', 'authType Bearer or Basic'],
        ['x-api-key', 'authType ApiKey'],
        ['X-Session-Token', 'authType Custom'],
      ] as const) {
        const { field, message } = customHeaders({ [name]: 'v4lue-never-echoed' });
        expect(field).toBe('customHeaders');
        expect(message).toContain(`customHeaders: ${name} looks like a credential`);
        expect(message).toContain('authType Custom, whose headers are stored encrypted');
        expect(message).toContain(matching);
        expect(message).not.toContain('v4lue-never-echoed');
      }
    });

    it.each([
      ['Content-Encoding', 'the body'],
      ['Content-Type', 'the body'],
      ['content-length', 'the body'],
      ['Content-MD5', 'the body'],
      ['Host', 'proxies'],
      ['Forwarded', 'proxies'],
      ['X-Forwarded-Proto', 'proxies'],
      ['Via', 'proxies'],
      ['X-Real-IP', 'proxies'],
      ['Connection', 'hop-by-hop'],
      ['Keep-Alive', 'hop-by-hop'],
      ['TE', 'hop-by-hop'],
      ['Trailer', 'hop-by-hop'],
      ['Transfer-Encoding', 'hop-by-hop'],
      ['Upgrade', 'hop-by-hop'],
      ['Proxy-Connection', 'hop-by-hop'],
      ['Proxy-Authorization', 'hop-by-hop'],
      ['X-Webhook-Timestamp', 'deliverer'],
      ['User-Agent', 'deliverer'],
      ['Expect', 'deliverer'],
      ['Webhook-Id', 'deliverer'],
      ['webhook-timestamp', 'deliverer'],
      ['WEBHOOK-SIGNATURE', 'deliverer'],
    ])('refuses %s, which would break a JSON delivery', (name, reason) => {
      const { field, message } = customHeaders({ [name]: 'x' });
      expect(field).toBe('customHeaders');
      expect(message).toContain(`${name} cannot be configured`);
      expect(message).toContain(reason);
    });

    it('takes at most 20 headers', () => {
      expect(checkCustomHeaders(JSON.stringify(headersOf(maxHeaderCount)), [])).not.toBeNull();
      expect(customHeaders(headersOf(maxHeaderCount + 1)).message).toBe('customHeaders: customHeaders may hold at most 20 headers');
    });

    it('takes names up to 128 characters and values up to 1024, and never echoes what is too long', () => {
      const name = `X-${'n'.repeat(maxHeaderNameLength - 2)}`;
      expect(checkCustomHeaders(JSON.stringify({ [name]: 'v'.repeat(maxHeaderValueLength) }), [])).not.toBeNull();
      expect(customHeaders({ [`${name}n`]: 'a' }).message).toBe('customHeaders: header names must be at most 128 characters');
      expect(customHeaders({ 'X-Tenant': 'v'.repeat(maxHeaderValueLength + 1) }).message).toBe(
        'customHeaders: the value of X-Tenant must be at most 1024 characters',
      );
    });

    it('does not echo a header name that is not a valid field name', () => {
      const { message } = customHeaders({ 'Authorization: Bearer s3cret': 'x' });
      expect(message).toContain('not a valid HTTP field name');
      expect(message).not.toContain('s3cret');
    });

    it('refuses the same name twice in any case, and a header the authType sets', () => {
      expect(refusal(() => checkCustomHeaders('{"X-Tenant":"a","x-tenant":"b"}', [])).message).toContain('given twice');
      expect(refusal(() => checkCustomHeaders('{"X-Cust":"a"}', ['x-cust'])).message).toContain('set by the configured authType');
    });

    it.each([
      ['a C1 next line (U+0085)', 'a\u0085'],
      ['the first C1 control (U+0080)', '\u0080a'],
      ['the last C1 control (U+009F)', 'a\u009f'],
      ['a NUL', 'a\u0000'],
      ['a line feed', 'a\nb'],
      ['a DEL', 'a\u007f'],
      ['a character above U+00FF', 'a\u0100'],
    ])('refuses a value with %s, without echoing it', (_case, value) => {
      const { field, message } = customHeaders({ 'X-Tenant': `v4lue-never-echoed${value}` });
      expect(field).toBe('customHeaders');
      expect(message).toBe('customHeaders: the value of X-Tenant must be a string without control characters');
    });

    it('takes a value with visible Latin-1 characters, a no-break space and a tab', () => {
      expect(checkCustomHeaders(JSON.stringify({ 'X-Site': 'Zürich\u00a0Süd\tÿ' }), [])).not.toBeNull();
    });

    it.each([
      ['a Bearer authorization', 'Bearer v4lue-never-echoed'],
      ['a lower-case bearer authorization', 'bearer v4lue-never-echoed'],
      ['a Basic authorization', 'BASIC v4lue-never-echoed'],
      ['a Token authorization', 'Token v4lue-never-echoed'],
      ['a Digest authorization', 'Digest username="v4lue-never-echoed"'],
      ['an authorization after leading whitespace', ' \tBearer v4lue-never-echoed'],
      ['an authorization scheme followed by a tab', 'Bearer\tv4lue-never-echoed'],
      ['a JWT', 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ2NGx1ZS1uZXZlci1lY2hvZWQifQ.c2ln'],
      ['an unsigned JWT', 'eyJhbGciOiJub25lIn0.eyJzdWIiOiJ2NGx1ZS1uZXZlci1lY2hvZWQifQ.'],
      ['a JWT inside the value', 'session=eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ2NGx1ZS1uZXZlci1lY2hvZWQifQ.c2ln; v4lue-never-echoed'],
    ])('refuses a value that carries %s under an ordinary name, pointing to authType Custom, never echoing it', (_case, value) => {
      const { field, message } = customHeaders({ 'X-Tenant': value });
      expect(field).toBe('customHeaders');
      expect(message).toContain('customHeaders: the value of X-Tenant looks like a credential');
      expect(message).toContain('authType Custom, whose headers are stored encrypted');
      expect(message).toContain('Bearer, Basic or ApiKey');
      expect(message).not.toContain('v4lue-never-echoed');
      expect(message).not.toContain('eyJ');
    });

    it.each(['Bearer', 'Basically fine', 'Tokenized', 'token-bucket', 'digest-sha256', 'eyJ', 'a.b.c', 'eyJhbGciOiJIUzI1NiJ9', 'v1.eyJhbGci.x'])(
      'takes the ordinary value %s',
      (value) => {
        expect(checkCustomHeaders(JSON.stringify({ 'X-Tenant': value }), [])).not.toBeNull();
      },
    );

    it('refuses the exact same name twice, which JSON.parse would collapse to the last', () => {
      expect(refusal(() => checkCustomHeaders('{"X-A":"1","X-A":"2"}', []))).toEqual({ field: 'customHeaders', message: 'customHeaders: X-A is given twice' });
      expect(refusal(() => checkCustomHeaders('{"X-A":"1","X\\u002dA":"2"}', [])).message).toBe('customHeaders: X-A is given twice');
    });

    it('refuses a name given twice without echoing it when it is not a valid field name', () => {
      const { message } = refusal(() => checkCustomHeaders('{"Authorization: Bearer s3cret":"1","Authorization: Bearer s3cret":"2"}', []));
      expect(message).toBe('customHeaders: a name is given twice');
    });

    it('takes values with escaped quotes that look like repeated names', () => {
      expect(checkCustomHeaders('{"X-A":"\\"X-B\\":","X-B":"1"}', [])).toBe('{"X-A":"\\"X-B\\":","X-B":"1"}');
    });

    it('returns ordinary headers as JSON, and null for nothing', () => {
      expect(checkCustomHeaders('{"X-Tenant":"acme","Accept":"application/json"}', [])).toBe('{"X-Tenant":"acme","Accept":"application/json"}');
      expect(checkCustomHeaders(' ', [])).toBeNull();
      expect(checkCustomHeaders(null, [])).toBeNull();
    });
  });

  describe('authType Custom', () => {
    it('takes credential headers, which are stored encrypted', () => {
      const headers = { Authorization: 'Bearer t', Cookie: 'session=s', 'X-API-Key': 'k', 'X-Hub-Signature': 'sig' };
      expect(checkAuthPayload('Custom', JSON.stringify({ headers }))).toEqual({ headers });
    });

    it.each([
      'Content-Type',
      'Content-Encoding',
      'Host',
      'X-Forwarded-For',
      'Forwarded',
      'Via',
      'X-Real-IP',
      'Connection',
      'Transfer-Encoding',
      'Proxy-Authorization',
      'X-Webhook-Retry-Count',
      'User-Agent',
      'Webhook-Signature',
    ])('refuses %s, which would break a JSON delivery, without echoing its value', (name) => {
      const { field, message } = customAuth({ [name]: 'v4lue-never-echoed' });
      expect(field).toBe('authPayload');
      expect(message).toContain(`${name} cannot be configured`);
      expect(message).not.toContain('v4lue-never-echoed');
    });

    it('refuses the exact same header name twice, and headers twice', () => {
      expect(refusal(() => checkAuthPayload('Custom', '{"headers":{"X-A":"1","X-A":"2"}}'))).toEqual({
        field: 'authPayload',
        message: 'authPayload: X-A is given twice',
      });
      expect(refusal(() => checkAuthPayload('Custom', '{"headers":{"X-A":"1"},"headers":{"X-B":"2"}}')).message).toBe('authPayload: headers is given twice');
    });

    it('takes at most 20 headers with values up to 4096 characters', () => {
      expect(customAuth(headersOf(maxHeaderCount + 1)).message).toBe('authPayload: headers may hold at most 20 headers');
      expect(checkAuthPayload('Custom', JSON.stringify({ headers: { Authorization: 't'.repeat(maxCredentialLength) } }))).not.toBeNull();
      expect(customAuth({ Authorization: 't'.repeat(maxCredentialLength + 1) }).message).toBe(
        'authPayload: the value of Authorization must be at most 4096 characters',
      );
    });
  });

  it.each([
    ['Bearer', { token: 's3cret\u0085' }, 'token'],
    ['ApiKey', { apiKeyValue: '\u0080s3cret' }, 'apiKeyValue'],
    ['Basic', { username: 'u', password: 's3cret\u009f' }, 'password'],
    ['Basic', { username: 'u\u008a', password: 's3cret' }, 'username'],
  ] as const)('refuses a %s credential with a C1 control character, naming the key and never the value', (authType, payload, key) => {
    const { field, message } = refusal(() => checkAuthPayload(authType, JSON.stringify(payload)));
    expect(field).toBe('authPayload');
    expect(message).toBe(`authPayload: ${key} must not contain control characters`);
  });

  it('refuses a Custom header value with a C1 control character, never echoing it', () => {
    expect(customAuth({ Authorization: 'Bearer s3cret\u0085' }).message).toBe(
      'authPayload: the value of Authorization must be a string without control characters',
    );
  });

  it('refuses a Bearer token given twice, never echoing either', () => {
    const { field, message } = refusal(() => checkAuthPayload('Bearer', '{"token":"v4lue-never-echoed","token":"other-v4lue"}'));
    expect(field).toBe('authPayload');
    expect(message).toBe('authPayload: token is given twice');
  });

  it.each([
    ['Bearer', { token: 't'.repeat(maxCredentialLength + 1) }, 'token'],
    ['ApiKey', { apiKeyValue: 'k'.repeat(maxCredentialLength + 1) }, 'apiKeyValue'],
    ['Basic', { username: 'u', password: 'p'.repeat(maxCredentialLength + 1) }, 'password'],
  ] as const)('refuses a %s credential over 4096 characters, naming the key and never the value', (authType, payload, key) => {
    const { field, message } = refusal(() => checkAuthPayload(authType, JSON.stringify(payload)));
    expect(field).toBe('authPayload');
    expect(message).toBe(`authPayload: ${key} must be at most 4096 characters`);
  });

  it.each(['__proto__', 'constructor', 'prototype'])('refuses %s as a header name, in customHeaders and in Custom headers', (name) => {
    expect(refusal(() => checkCustomHeaders(`{"${name}":"x"}`, [])).field).toBe('customHeaders');
    expect(refusal(() => checkAuthPayload('Custom', `{"headers":{"${name}":"x"}}`)).field).toBe('authPayload');
  });
});
