// If-Match on a webhook configuration's PUT and DELETE, on both stores: the change is made only while
// the configuration is the version the client read (its strong ETag), checked under the row's lock.
import { personToken, startPlatform } from '@platform/dev-platform/testing';
import { startedForTests } from '@platform/tool-sdk/testing';
import { beforeAll, describe, expect, it } from 'vitest';
import { startedApiForTests, type Backend } from './harness.ts';

const platform = startedForTests(() => startPlatform());
const hook = { name: 'Boiler feed', url: 'https://receiver.example/hook', deliveryMode: 'Realtime' };

describe.each<Backend>(['SQLite', 'PostgreSQL'])('If-Match on %s', (backend) => {
  const api = startedApiForTests(backend, () => platform().issuer);
  let bearer: string;

  beforeAll(async () => {
    bearer = `Bearer ${await personToken(platform().issuer, 'oscar')}`;
  });

  async function send(method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
    const response = await fetch(`${api().url}${path}`, {
      method,
      headers: { authversion: 'V0.0.1', authorization: bearer, ...(body !== undefined && { 'content-type': 'application/json' }), ...headers },
      ...(body !== undefined && { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    return { status: response.status, etag: response.headers.get('etag'), body: text ? (JSON.parse(text) as unknown) : undefined };
  }
  async function created(): Promise<{ id: string; etag: string }> {
    const answer = await send('POST', '/v2/webhooks?companyId=1', hook);
    const { id } = answer.body as { id: string };
    const read = await send('GET', `/v2/webhooks/${id}`);
    return { id, etag: read.etag ?? '' };
  }
  const refused = (id: string) => ({
    status: 412,
    body: {
      error: {
        code: 'PRECONDITION_FAILED',
        field: 'If-Match',
        message: `webhook configuration ${id} has changed since the version If-Match names; read it again (its ETag) and make the change on that`,
      },
    },
  });

  it('sends a strong ETag with a configuration, the same on every read of one version', async () => {
    const { id, etag } = await created();
    expect(etag).toMatch(/^"[^"]+"$/);
    expect((await send('GET', `/v2/webhooks/${id}`)).etag).toBe(etag);
  });

  it('updates on the ETag read, answers the new one, and refuses the old one (412) leaving the configuration as it is', async () => {
    const { id, etag } = await created();
    const first = await send('PUT', `/v2/webhooks/${id}`, { ...hook, name: 'First edit' }, { 'if-match': etag });
    expect(first).toMatchObject({ status: 200, body: { name: 'First edit' } });
    expect(first.etag).not.toBe(etag);
    expect((await send('GET', `/v2/webhooks/${id}`)).etag).toBe(first.etag);

    expect(await send('PUT', `/v2/webhooks/${id}`, { ...hook, name: 'Lost edit' }, { 'if-match': etag })).toMatchObject(refused(id));
    expect(await send('PUT', `/v2/webhooks/${id}`, { ...hook, name: 'Lost edit' }, { 'if-match': `W/${first.etag ?? ''}` })).toMatchObject(refused(id));
    expect((await send('GET', `/v2/webhooks/${id}`)).body).toMatchObject({ name: 'First edit' });

    expect(await send('PUT', `/v2/webhooks/${id}`, { ...hook, name: 'Second edit' }, { 'if-match': `"other", ${first.etag ?? ''}` })).toMatchObject({
      status: 200,
      body: { name: 'Second edit' },
    });
    expect(await send('PUT', `/v2/webhooks/${id}`, { ...hook, name: 'Any version' }, { 'if-match': '*' })).toMatchObject({ status: 200 });
  });

  it('takes a new version for new credentials, which no answer shows: a PUT on the version before them is 412', async () => {
    const { id, etag } = await created();
    const rotated = await send('PUT', `/v2/webhooks/${id}`, { ...hook, authType: 'Bearer', authPayload: JSON.stringify({ token: 'rotated-token-1' }) });
    expect(rotated.status).toBe(200);
    const again = await send('PUT', `/v2/webhooks/${id}`, { ...hook, authType: 'Bearer', authPayload: JSON.stringify({ token: 'rotated-token-2' }) });
    expect(again.body).toEqual(rotated.body);
    expect(again.etag).not.toBe(rotated.etag);
    expect(
      await send('PUT', `/v2/webhooks/${id}`, { ...hook, authPayload: JSON.stringify({ token: 'stale' }) }, { 'if-match': rotated.etag ?? '' }),
    ).toMatchObject(refused(id));
    expect(await send('PUT', `/v2/webhooks/${id}`, { ...hook, name: 'On the first' }, { 'if-match': etag })).toMatchObject(refused(id));
  });

  it('answers a create with the ETag a later read gives', async () => {
    const answer = await send('POST', '/v2/webhooks?companyId=1', hook);
    const { id } = answer.body as { id: string };
    expect(answer.etag).toBe((await send('GET', `/v2/webhooks/${id}`)).etag);
    expect(await send('PUT', `/v2/webhooks/${id}`, { ...hook, name: 'On the create' }, { 'if-match': answer.etag ?? '' })).toMatchObject({ status: 200 });
  });

  it('lets one of two updates made on the same version through, and refuses the other', async () => {
    const { id, etag } = await created();
    const answers = await Promise.all(['Edit A', 'Edit B', 'Edit C'].map((name) => send('PUT', `/v2/webhooks/${id}`, { ...hook, name }, { 'if-match': etag })));
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 412, 412]);
    const winner = answers.find((answer) => answer.status === 200)?.body as { name: string };
    expect((await send('GET', `/v2/webhooks/${id}`)).body).toMatchObject({ name: winner.name });
  });

  it('deletes on the ETag read only: an old one is 412 and deletes nothing', async () => {
    const { id, etag } = await created();
    await send('PUT', `/v2/webhooks/${id}`, { ...hook, name: 'Edited meanwhile' });
    expect(await send('DELETE', `/v2/webhooks/${id}`, undefined, { 'if-match': etag })).toMatchObject(refused(id));
    expect((await send('GET', `/v2/webhooks/${id}`)).status).toBe(200);
    const current = (await send('GET', `/v2/webhooks/${id}`)).etag ?? '';
    expect(await send('DELETE', `/v2/webhooks/${id}`, undefined, { 'if-match': current })).toMatchObject({ status: 200, body: true });
    expect((await send('GET', `/v2/webhooks/${id}`)).status).toBe(404);
  });

  it('ignores empty elements of the list, as RFC 9110 asks', async () => {
    const { id, etag } = await created();
    expect(await send('PUT', `/v2/webhooks/${id}`, { ...hook, name: 'Listed loosely' }, { 'if-match': `, "other",, ${etag} ,` })).toMatchObject({
      status: 200,
    });
  });

  it.each(['abc', '"unterminated', 'W/abc', '"a" "b"', '*, "a"', ','])('answers 400 naming If-Match for %j, and changes nothing', async (header) => {
    const { id } = await created();
    const answer = await send('PUT', `/v2/webhooks/${id}`, { ...hook, name: 'Never' }, { 'if-match': header });
    expect(answer).toMatchObject({ status: 400, body: { error: { code: 'VALIDATION_FAILED', field: 'If-Match' } } });
    expect((await send('GET', `/v2/webhooks/${id}`)).body).toMatchObject({ name: hook.name });
  });
});
