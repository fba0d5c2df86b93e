import { startedForTests } from '@platform/tool-sdk/testing';
// The platform reads JSON bodies in UTF-8 only and never compressed: another charset or a
// Content-Encoding is 415, and a malformed body is 400 without the body repeated in the message.
import { gzipSync } from 'node:zlib';
import { beforeAll, describe, expect, it } from 'vitest';
import { personToken, startPlatform } from './harness.ts';

const running = startedForTests(() => startPlatform());
let owner: string;
beforeAll(async () => {
  owner = await personToken(running().issuer, 'olivia');
});

const providers = JSON.stringify({ providers: [{ id: 'acme-sso', type: 'oidc', issuer: 'https://sso.acme.example' }] });

async function put(body: string | Uint8Array, headers: Record<string, string>, path = '/api/companies/1/identity-providers') {
  const response = await fetch(`${running().issuer}${path}`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${owner}`, 'content-type': 'application/json', ...headers },
    body,
  });
  return { status: response.status, body: await response.json() };
}

const unsupported = { error: 'unsupported_media_type', message: expect.any(String) as unknown };

describe('JSON bodies', () => {
  it.each([
    ['utf-16le', Buffer.from(providers, 'utf16le')],
    ['utf-16', Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(providers, 'utf16le')])],
    ['utf-7', Buffer.from(providers, 'latin1')],
    ['iso-8859-1', Buffer.from(providers, 'latin1')],
    ['utf8', Buffer.from(providers)],
  ])('refuses a body in charset %s with 415', async (charset, body) => {
    expect(await put(body, { 'content-type': `application/json; charset=${charset}` })).toEqual({ status: 415, body: unsupported });
  });

  it.each([
    ['gzip', gzipSync(providers)],
    ['deflate', gzipSync(providers)],
    ['br', Buffer.from(providers)],
  ])('refuses a body with Content-Encoding %s with 415', async (encoding, body) => {
    expect(await put(body, { 'content-encoding': encoding })).toEqual({ status: 415, body: unsupported });
  });

  it.each(['text/plain', 'application/x-www-form-urlencoded'])('refuses a body sent as %s with 415', async (type) => {
    expect(await put(providers, { 'content-type': type })).toEqual({ status: 415, body: unsupported });
  });

  it.each(['application/json', 'application/json; charset=utf-8', 'application/json; charset="UTF-8"'])('takes a UTF-8 body sent as %s', async (type) => {
    expect((await put(providers, { 'content-type': type })).status).toBe(200);
    expect((await put(providers, { 'content-type': type, 'content-encoding': 'identity' })).status).toBe(200);
  });

  it.each([
    ['a truncated object', '{"providers": "private-marker'],
    ['a bare string (strict JSON)', '"private-marker"'],
    ['a bare word', 'private-marker'],
  ])('answers %s with 400 that does not repeat the body', async (_case, body) => {
    const result = await put(body, {});
    expect(result).toEqual({ status: 400, body: { error: 'invalid_request', message: 'body: is not valid JSON' } });
  });

  it('answers a body over the limit with 413 that does not repeat it', async () => {
    const result = await put(JSON.stringify({ providers: [], padding: 'private-marker'.repeat(6_000) }), {});
    expect(result).toEqual({ status: 413, body: { error: 'invalid_request', message: 'body: is too large' } });
  });

  it('answers a malformed or compressed scripted-login body the same way', async () => {
    const login = async (body: string | Uint8Array, headers: Record<string, string> = {}) => {
      const response = await fetch(`${running().issuer}/dev/token`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
      return { status: response.status, body: await response.json() };
    };
    expect(await login('{"username": "private-marker')).toEqual({ status: 400, body: { error: 'invalid_request', message: 'body: is not valid JSON' } });
    expect(await login(gzipSync('{"username":"oscar"}'), { 'content-encoding': 'gzip' })).toEqual({ status: 415, body: unsupported });
    expect(await login(Buffer.from('{"username":"oscar"}', 'utf16le'), { 'content-type': 'application/json; charset=utf-16le' })).toEqual({
      status: 415,
      body: unsupported,
    });
  });

  it('answers a malformed or compressed body at the other service the same way', async () => {
    const embed = async (body: string | Uint8Array, headers: Record<string, string> = {}) => {
      const response = await fetch(`${running().aiUrl}/v1/embeddings`, {
        method: 'POST',
        headers: { authorization: `Bearer ${owner}`, 'content-type': 'application/json', ...headers },
        body,
      });
      return { status: response.status, body: await response.json() };
    };
    expect(await embed('{"input": "private-marker')).toEqual({ status: 400, body: { error: 'invalid_request', message: 'body: is not valid JSON' } });
    expect(await embed(gzipSync('{"input":"pump"}'), { 'content-encoding': 'gzip' })).toEqual({ status: 415, body: unsupported });
  });
});
