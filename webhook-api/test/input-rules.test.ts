import { startedForTests } from '@platform/tool-sdk/testing';
// The input rules end to end on both stores: plain text fields, sane urls stored as parsed, write-only secrets, bounded headers.
import { personToken, startPlatform } from '@platform/dev-platform/testing';
import { beforeAll, describe, expect, it } from 'vitest';
import { startedApiForTests, telemetryPoint, testIngestToken, type ApiClient, type Backend } from './harness.ts';

const platform = startedForTests(() => startPlatform());

const hook = { name: 'Boiler feed', url: 'https://receiver.example/hook', deliveryMode: 'Realtime' };
const custom = (headers: Record<string, string>) => ({ ...hook, authType: 'Custom', authPayload: JSON.stringify({ headers }) });
const manyHeaders = (count: number) => JSON.stringify(Object.fromEntries(Array.from({ length: count }, (_, i) => [`X-Tenant-${i}`, 'a'])));

interface ErrorAnswer {
  readonly status: number;
  readonly body: unknown;
}
const messageOf = (answer: ErrorAnswer) => (answer.body as { error: { message: string } }).error.message;

describe.each<Backend>(['SQLite', 'PostgreSQL'])('the input rules on %s', (backend) => {
  const api = startedApiForTests(backend, () => platform().issuer);
  let oscar: ApiClient;
  let configId: string;
  let routes: string;

  beforeAll(async () => {
    oscar = await api().clientAs('oscar');
    const created = await oscar('POST', '/v2/webhooks?companyId=1', hook);
    configId = (created.body as { id: string }).id;
    await oscar('POST', `/v2/webhooks/${configId}/devices/1001`);
    routes = `/v2/webhooks/${configId}/devices/1001/routes`;
  });

  /** POSTs and PUTs a configuration body; both must answer 400 naming `field` and store nothing. */
  async function expectRefused(body: Record<string, unknown>, field: string): Promise<string[]> {
    const before = await api().store.countConfigs();
    const stored = await api().store.getConfig(configId);
    const created = await oscar('POST', '/v2/webhooks?companyId=1', body);
    const updated = await oscar('PUT', `/v2/webhooks/${configId}`, body);
    for (const answer of [created, updated]) {
      expect(answer.status).toBe(400);
      expect(answer.body).toMatchObject({ error: { code: 'VALIDATION_FAILED', field } });
      expect(messageOf(answer)).toMatch(new RegExp(`^${field}: `));
    }
    expect(await api().store.countConfigs()).toBe(before);
    expect(await api().store.getConfig(configId)).toEqual(stored);
    return [messageOf(created), messageOf(updated)];
  }

  describe('the body as bytes', () => {
    /** `json` with the bytes of `marker` (a plain ASCII string in it) replaced by `bytes`. */
    const withBytes = (json: string, marker: string, bytes: number[]) => {
      const [before, after] = json.split(marker);
      return Buffer.concat([Buffer.from(before ?? ''), Buffer.from(bytes), Buffer.from(after ?? '')]);
    };
    const post = async (path: string, authorization: string, body: Buffer) => {
      const answer = await fetch(`${api().url}${path}`, {
        method: 'POST',
        headers: { authorization, 'content-type': 'application/json', AuthVersion: 'V0.0.1' },
        body,
      });
      return { status: answer.status, body: await answer.json() };
    };

    it.each([
      ['a byte that starts no character', [0xff]],
      ['a sequence cut short', [0xe2, 0x82]],
      ['an overlong encoding of /', [0xc0, 0xaf]],
      ['a surrogate encoded as UTF-8', [0xed, 0xa0, 0x80]],
    ])('answers 400 naming body for %s, where the decoder would put U+FFFD, and stores nothing', async (_case, bytes) => {
      const before = await api().store.countConfigs();
      const bearer = `Bearer ${await personToken(platform().issuer, 'oscar')}`;
      const answer = await post('/v2/webhooks?companyId=1', bearer, withBytes(JSON.stringify({ ...hook, name: 'Boiler MARK feed' }), 'MARK', bytes));
      expect(answer).toEqual({
        status: 400,
        body: { error: expect.objectContaining({ code: 'VALIDATION_FAILED', field: 'body', message: 'body: is not well-formed UTF-8' }) as unknown },
      });
      expect(await api().store.countConfigs()).toBe(before);

      const point = telemetryPoint(1001, { tags: { site: 'north MARK' } });
      const ingest = await post('/internal/telemetry', `Bearer ${testIngestToken}`, withBytes(JSON.stringify({ points: [point] }), 'MARK', bytes));
      expect(ingest).toMatchObject({ status: 400, body: { error: { code: 'VALIDATION_FAILED', field: 'body' } } });
    });

    it.each([
      ['[]', 'body: must be a JSON object, not an array'],
      ['"hook"', 'body: must be a JSON object, not a string'],
      ['null', 'body: must be a JSON object, not null'],
    ])('answers 400 naming body for the JSON %s, saying what it is', async (json, message) => {
      const bearer = `Bearer ${await personToken(platform().issuer, 'oscar')}`;
      expect(await post('/v2/webhooks?companyId=1', bearer, Buffer.from(json))).toEqual({
        status: 400,
        body: { error: expect.objectContaining({ code: 'VALIDATION_FAILED', field: 'body', message }) as unknown },
      });
    });

    it('takes well-formed UTF-8 of every length, as sent', async () => {
      const name = 'Kessel ä € 𝄞 feed';
      const bearer = `Bearer ${await personToken(platform().issuer, 'oscar')}`;
      const answer = await post('/v2/webhooks?companyId=1', bearer, Buffer.from(JSON.stringify({ ...hook, name })));
      expect(answer).toMatchObject({ status: 201, body: { name } });
    });
  });

  describe('text fields', () => {
    it.each([
      ['a NUL', 'Boiler\u0000feed'],
      ['a line feed', 'Boiler\nfeed'],
      ['an escape', 'Boiler\u001bfeed'],
      ['a DEL', 'Boiler\u007ffeed'],
    ])('answers 400 naming name for a name with %s, and stores nothing', async (_case, name) => {
      const [message] = await expectRefused({ ...hook, name }, 'name');
      expect(message).toContain('control characters');
    });

    it('answers 400 naming name for an unpaired surrogate, which PostgreSQL would store as U+FFFD', async () => {
      const [message] = await expectRefused({ ...hook, name: 'Boiler \ud800 feed' }, 'name');
      expect(message).toContain('well-formed Unicode');
    });

    it.each([
      ['connectionTag', { scopeLevel: 'Connection', connectionTag: 'modbus\u00001' }],
      ['connectionTag', { scopeLevel: 'Connection', connectionTag: 'modbus\t1' }],
      ['measurement', { scopeLevel: 'Measurement', connectionTag: 'modbus-1', measurement: 'temp\u0000' }],
      ['measurement', { scopeLevel: 'Measurement', connectionTag: 'modbus-1', measurement: '\u007ftemp' }],
    ])('answers 400 naming %s for a control character on create and edit of a scope, and stores nothing', async (field, body) => {
      const kept = await oscar('POST', routes, { scopeLevel: 'Connection', connectionTag: `kept-${field}-${String(Math.random())}` });
      expect(kept.status).toBe(201);
      const before = await api().store.listScopes(configId, 1001);
      for (const answer of [await oscar('POST', routes, body), await oscar('PUT', `${routes}/${(kept.body as { id: string }).id}`, body)]) {
        expect(answer).toMatchObject({ status: 400, body: { error: { code: 'VALIDATION_FAILED', field } } });
        expect(messageOf(answer)).toContain('control characters');
      }
      expect(await api().store.listScopes(configId, 1001)).toEqual(before);
    });
  });

  describe('url', () => {
    it.each([
      ['user and password', 'https://ingest:s3cr3t-pw@receiver.example/hook'],
      ['a user only', 'https://ingest-s3cr3t@receiver.example/hook'],
      ['an empty user', 'https://@receiver.example/hook'],
    ])('answers 400 naming url for a url with user information (%s), pointing to authPayload', async (_case, url) => {
      for (const message of await expectRefused({ ...hook, url }, 'url')) {
        expect(message).toContain('user information');
        expect(message).toContain('authPayload');
        expect(message).not.toContain('s3cr3t');
      }
    });

    it.each([
      ['a NUL', 'https://receiver.example/ho\u0000ok'],
      ['a tab', 'https://receiver.example/ho\tok'],
      ['a line feed', 'https://receiver.example/hook\n'],
      ['a leading space', ' https://receiver.example/hook'],
      ['a space in the host', 'https://receiver .example/hook'],
      ['a no-break space', 'https://receiver.example/ho\u00a0ok'],
      ['a backslash', 'https://receiver.example\\@evil.example/hook'],
      ['a backslash for the slashes', 'https:\\\\receiver.example/hook'],
      ['no slashes after the scheme', 'https:receiver.example/hook'],
      ['one slash after the scheme', 'https:/receiver.example/hook'],
      ['three slashes after the scheme', 'https:///receiver.example/hook'],
      ['an ftp scheme', 'ftp://receiver.example/hook'],
      ['a javascript scheme', 'javascript://receiver.example/%0aalert(1)'],
      ['a fragment', 'https://receiver.example/hook#part'],
      ['an empty fragment', 'https://receiver.example/hook#'],
      ['an empty host', 'https://:443/hook'],
      ['a percent-encoded host', 'https://receiver%2eexample/hook'],
      ['an invalid port', 'https://receiver.example:99999/hook'],
    ])('answers 400 naming url for a url with %s, and stores nothing', async (_case, url) => {
      await expectRefused({ ...hook, url }, 'url');
    });

    it('answers 400 naming url for a lone surrogate, which the parser would store as U+FFFD', async () => {
      for (const message of await expectRefused({ ...hook, url: 'https://r.example/a\ud800b' }, 'url')) {
        expect(message).toContain('well-formed Unicode');
      }
    });

    it('answers 400 naming url when the serialized url grows past 2048 characters', async () => {
      const url = `https://receiver.example/${'é'.repeat(1000)}`;
      expect(url.length).toBeLessThanOrEqual(2048);
      const [message] = await expectRefused({ ...hook, url }, 'url');
      expect(message).toContain('2048');
    });

    it.each([
      ['an upper-case scheme and host with the default port', 'HTTPS://Receiver.EXAMPLE:443/hook', 'https://receiver.example/hook'],
      ['a host without a path', 'https://receiver.example', 'https://receiver.example/'],
      ['dot segments', 'http://receiver.example/a/../hook?x=1', 'http://receiver.example/hook?x=1'],
      ['a non-ASCII path', 'https://receiver.example/wärme', 'https://receiver.example/w%C3%A4rme'],
      ['a non-ASCII host', 'https://bücher.example/hook', 'https://xn--bcher-kva.example/hook'],
    ])('stores and returns the url as the WHATWG parser serializes it (%s)', async (_case, url, href) => {
      const created = await oscar('POST', '/v2/webhooks?companyId=1', { ...hook, url });
      expect(created).toMatchObject({ status: 201, body: { url: href } });
      const id = (created.body as { id: string }).id;
      expect((await api().store.getConfig(id))?.url).toBe(href);
      expect((await oscar('GET', `/v2/webhooks/${id}`)).body).toMatchObject({ url: href });
      expect((await oscar('PUT', `/v2/webhooks/${id}`, { ...hook, url })).body).toMatchObject({ url: href });
    });
  });

  describe('customHeaders', () => {
    it.each([
      ['Authorization', 'Bearer or Basic'],
      ['authorization', 'Bearer or Basic'],
      ['X-API-Key', 'ApiKey'],
      ['Cookie', 'authType Custom'],
      ['Set-Cookie', 'authType Custom'],
      ['X-Auth-Token', 'authType Custom'],
      ['X-Access-Token', 'authType Custom'],
      ['X-Client-Secret', 'authType Custom'],
      ['X-Password', 'authType Custom'],
      ['X-Apikey', 'authType Custom'],
      ['Api_Key', 'authType Custom'],
      ['X-Session-Id', 'authType Custom'],
      ['X-Credentials', 'authType Custom'],
      ['X-Hub-Signature-256', 'authType Custom'],
      ['Ocp-Apim-Subscription-Key', 'authType Custom'],
      ['X-Functions-Key', 'authType Custom'],
      ['X-Passphrase', 'authType Custom'],
      ['X-Pwd', 'authType Custom'],
      ['X-Pass', 'authType Custom'],
      ['X-Key', 'authType Custom'],
      ['X-Sig', 'authType Custom'],
      ['X-PSK', 'authType Custom'],
      ['X-Creds', 'authType Custom'],
    ])('answers 400 naming customHeaders for the credential header %s, pointing to %s, without echoing its value', async (name, advice) => {
      for (const message of await expectRefused({ ...hook, customHeaders: JSON.stringify({ [name]: 'cust0m-secret-v4lue' }) }, 'customHeaders')) {
        expect(message).toContain(name);
        expect(message).toContain('authType Custom');
        expect(message).toContain(advice);
        expect(message).toContain('encrypted');
        expect(message).not.toContain('cust0m-secret-v4lue');
      }
    });

    it.each([
      'Proxy-Authorization',
      'Content-Encoding',
      'Content-Type',
      'Content-Length',
      'Content-Language',
      'Transfer-Encoding',
      'Host',
      'Forwarded',
      'X-Forwarded-For',
      'X-Forwarded-Host',
      'Via',
      'X-Real-IP',
      'Connection',
      'Keep-Alive',
      'TE',
      'Trailer',
      'Upgrade',
      'X-Webhook-Timestamp',
      'User-Agent',
    ])('answers 400 naming customHeaders for %s, which would break a JSON delivery', async (name) => {
      const [message] = await expectRefused({ ...hook, customHeaders: JSON.stringify({ [name]: 'x' }) }, 'customHeaders');
      expect(message).toContain(name);
    });

    it.each([
      ['customHeaders', { ...hook, customHeaders: JSON.stringify({ 'X-Foo': 'cust0m-v4lue\u0085' }) }],
      ['authPayload', { ...hook, authType: 'Bearer', authPayload: JSON.stringify({ token: 'cust0m-v4lue\u0085' }) }],
      ['authPayload', custom({ 'X-Signature': 'cust0m-v4lue\u009b' })],
    ])('answers 400 naming %s for a C1 control character in a header value, without echoing it', async (field, body) => {
      for (const message of await expectRefused(body, field)) {
        expect(message).toContain('control characters');
        expect(message).not.toContain('cust0m-v4lue');
      }
    });

    it.each([
      ['a Bearer authorization', 'Bearer cust0m-secret-v4lue'],
      ['a basic authorization', 'basic cust0m-secret-v4lue'],
      ['a Token authorization', 'TOKEN cust0m-secret-v4lue'],
      ['a Digest authorization', 'Digest response="cust0m-secret-v4lue"'],
      ['a JWT', 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJjdXN0MG0tc2VjcmV0LXY0bHVlIn0.c2ln'],
    ])('answers 400 naming customHeaders for a value carrying %s, pointing to authType Custom, without echoing it', async (_case, value) => {
      for (const message of await expectRefused({ ...hook, customHeaders: JSON.stringify({ 'X-Tenant': value }) }, 'customHeaders')) {
        expect(message).toContain('X-Tenant looks like a credential');
        expect(message).toContain('authType Custom');
        expect(message).toContain('encrypted');
        expect(message).not.toContain('cust0m-secret-v4lue');
        expect(message).not.toContain('eyJ');
      }
    });

    it('accepts ordinary names and values that merely resemble credentials', async () => {
      const customHeaders = JSON.stringify({ 'X-Tenant': 'acme', 'X-Request-Source': 'token-bucket', 'X-Passenger-Count': 'Bearer' });
      expect(await oscar('POST', '/v2/webhooks?companyId=1', { ...hook, customHeaders })).toMatchObject({ status: 201, body: { customHeaders } });
    });

    it('answers 400 naming customHeaders for the exact same name given twice, without echoing a value', async () => {
      for (const message of await expectRefused({ ...hook, customHeaders: '{"X-A":"cust0m-v4lue-1","X-A":"cust0m-v4lue-2"}' }, 'customHeaders')) {
        expect(message).toBe('customHeaders: X-A is given twice');
      }
    });

    it('accepts ordinary custom headers and returns them', async () => {
      const customHeaders = JSON.stringify({ 'X-Tenant': 'acme', 'X-Region': 'eu-1', Accept: 'application/json' });
      expect(await oscar('POST', '/v2/webhooks?companyId=1', { ...hook, customHeaders })).toMatchObject({ status: 201, body: { customHeaders } });
    });
  });

  describe('authType Custom headers', () => {
    it('answers 400 naming authPayload for the exact same Custom header name given twice', async () => {
      const body = { ...hook, authType: 'Custom', authPayload: '{"headers":{"X-A":"cust0m-v4lue-1","X-A":"cust0m-v4lue-2"}}' };
      for (const message of await expectRefused(body, 'authPayload')) expect(message).toBe('authPayload: X-A is given twice');
    });

    it('accepts credential headers, since they are stored encrypted', async () => {
      const created = await oscar('POST', '/v2/webhooks?companyId=1', custom({ Authorization: 'Bearer c-1', Cookie: 'session=s-1', 'X-Hub-Signature': 'sig' }));
      expect(created.status).toBe(201);
    });

    it.each([
      'Content-Encoding',
      'Content-Type',
      'Host',
      'X-Forwarded-For',
      'Forwarded',
      'Via',
      'X-Real-IP',
      'Transfer-Encoding',
      'Connection',
      'Proxy-Authorization',
      'X-Webhook-Retry-Count',
      'User-Agent',
    ])('answers 400 naming authPayload for %s, which would break a JSON delivery', async (name) => {
      const [message] = await expectRefused(custom({ [name]: 'cust0m-secret-v4lue' }), 'authPayload');
      expect(message).toContain(name);
      expect(message).not.toContain('cust0m-secret-v4lue');
    });
  });

  describe('header limits', () => {
    it('accepts 20 custom headers and answers 400 naming customHeaders for 21', async () => {
      expect((await oscar('POST', '/v2/webhooks?companyId=1', { ...hook, customHeaders: manyHeaders(20) })).status).toBe(201);
      expect((await expectRefused({ ...hook, customHeaders: manyHeaders(21) }, 'customHeaders'))[0]).toContain('at most 20 headers');
    });

    it('answers 400 naming customHeaders for a name over 128 characters or a value over 1024, without echoing them', async () => {
      const longName = `X-${'n'.repeat(127)}`;
      expect((await expectRefused({ ...hook, customHeaders: JSON.stringify({ [longName]: 'a' }) }, 'customHeaders'))[0]).toContain('128');
      const [message] = await expectRefused({ ...hook, customHeaders: JSON.stringify({ 'X-Tenant': 'v'.repeat(1025) }) }, 'customHeaders');
      expect(message).toContain('1024');
      expect(message).not.toContain('vvvv');
      expect(
        (await oscar('POST', '/v2/webhooks?companyId=1', { ...hook, customHeaders: JSON.stringify({ [longName.slice(0, 128)]: 'v'.repeat(1024) }) })).status,
      ).toBe(201);
    });

    it('answers 400 naming authPayload for more than 20 Custom headers or a Custom header value over 4096 characters', async () => {
      const headers = JSON.parse(manyHeaders(21)) as Record<string, string>;
      expect((await expectRefused(custom(headers), 'authPayload'))[0]).toContain('at most 20 headers');
      const [message] = await expectRefused(custom({ Authorization: `Bearer ${'t'.repeat(4096)}` }), 'authPayload');
      expect(message).toContain('4096');
      expect(message).not.toContain('tttt');
      expect((await oscar('POST', '/v2/webhooks?companyId=1', custom({ Authorization: `Bearer ${'t'.repeat(4089)}` }))).status).toBe(201);
    });

    it('answers 400 naming authPayload for a Bearer token over 4096 characters', async () => {
      const [message] = await expectRefused({ ...hook, authType: 'Bearer', authPayload: JSON.stringify({ token: 't'.repeat(4097) }) }, 'authPayload');
      expect(message).toContain('4096');
    });
  });
});
