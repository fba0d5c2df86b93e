// The input rules end to end on both stores: plain text fields, sane urls stored as parsed.
import { personToken, startPlatform, type RunningPlatform } from '@platform/dev-platform/testing';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { apiClient, newStoreLocation, startWebhookApi, type Backend, type RunningApi } from './harness.ts';

let platform: RunningPlatform;
beforeAll(async () => {
  platform = await startPlatform();
});
afterAll(async () => {
  await platform.close();
});

const hook = { name: 'Boiler feed', url: 'https://receiver.example/hook', deliveryMode: 'Realtime' };

interface ErrorAnswer {
  readonly status: number;
  readonly body: unknown;
}
const messageOf = (answer: ErrorAnswer) => (answer.body as { error: { message: string } }).error.message;

describe.each<Backend>(['SQLite', 'PostgreSQL'])('the input rules on %s', (backend) => {
  let api: RunningApi;
  let oscar: ReturnType<typeof apiClient>;
  let configId: string;
  let routes: string;

  beforeAll(async () => {
    api = await startWebhookApi({ location: await newStoreLocation(backend, inject('postgresUrl')), platformUrl: platform.issuer });
    oscar = apiClient(api.url, `Bearer ${await personToken(platform.issuer, 'oscar')}`);
    const created = await oscar('POST', '/v2/webhooks?companyId=1', hook);
    configId = (created.body as { id: string }).id;
    await oscar('POST', `/v2/webhooks/${configId}/devices/1001`);
    routes = `/v2/webhooks/${configId}/devices/1001/routes`;
  });
  afterAll(async () => {
    await api.close();
  });

  /** POSTs and PUTs a configuration body; both must answer 400 naming `field` and store nothing. */
  async function expectRefused(body: Record<string, unknown>, field: string): Promise<string[]> {
    const before = await api.store.countConfigs();
    const stored = await api.store.getConfig(configId);
    const created = await oscar('POST', '/v2/webhooks?companyId=1', body);
    const updated = await oscar('PUT', `/v2/webhooks/${configId}`, body);
    for (const answer of [created, updated]) {
      expect(answer.status).toBe(400);
      expect(answer.body).toMatchObject({ error: { code: 'VALIDATION_FAILED', field } });
      expect(messageOf(answer)).toMatch(new RegExp(`^${field}: `));
    }
    expect(await api.store.countConfigs()).toBe(before);
    expect(await api.store.getConfig(configId)).toEqual(stored);
    return [messageOf(created), messageOf(updated)];
  }

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
      const before = await api.store.listScopes(configId, 1001);
      for (const answer of [await oscar('POST', routes, body), await oscar('PUT', `${routes}/${(kept.body as { id: string }).id}`, body)]) {
        expect(answer).toMatchObject({ status: 400, body: { error: { code: 'VALIDATION_FAILED', field } } });
        expect(messageOf(answer)).toContain('control characters');
      }
      expect(await api.store.listScopes(configId, 1001)).toEqual(before);
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
      expect((await api.store.getConfig(id))?.url).toBe(href);
      expect((await oscar('GET', `/v2/webhooks/${id}`)).body).toMatchObject({ url: href });
      expect((await oscar('PUT', `/v2/webhooks/${id}`, { ...hook, url })).body).toMatchObject({ url: href });
    });
  });
});
