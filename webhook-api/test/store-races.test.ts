import { startedForTests } from '@platform/tool-sdk/testing';
import { startPlatform } from '@platform/dev-platform/testing';
import { beforeAll, describe, expect, it } from 'vitest';
import { startedApiForTests, type ApiClient, type Backend } from './harness.ts';

const platform = startedForTests(() => startPlatform());

const hook = { name: 'Race', url: 'https://receiver.example/hook', deliveryMode: 'Realtime' };
const expected = [200, 201, 204, 404, 409];

describe.each<Backend>(['SQLite', 'PostgreSQL'])('concurrent requests on one configuration on %s', (backend) => {
  const api = startedApiForTests(backend, () => platform().issuer);
  let oscar: ApiClient;
  beforeAll(async () => {
    oscar = await api().clientAs('oscar');
  });

  /** Every scope belongs to a link, every link to a configuration that exists. */
  async function expectConsistent(id: string) {
    const config = await api().store.getConfig(id);
    const links = await api().store.listLinks(id);
    if (!config) expect(links).toEqual([]);
    for (const deviceId of [1001, 1002]) {
      const scopes = await api().store.listScopes(id, deviceId);
      if (!links.some((l) => l.deviceId === deviceId)) expect(scopes, `scopes of unlinked device ${deviceId}`).toEqual([]);
    }
  }

  it('answers link, unlink, scope and delete requests racing each other with 2xx, 404 or 409, never 500', async () => {
    const statuses = new Set<number>();
    for (let round = 0; round < 8; round++) {
      const { id } = (await oscar('POST', '/v2/webhooks?companyId=1', hook)).body as { id: string };
      await oscar('POST', `/v2/webhooks/${id}/devices/1001`);
      const requests = [
        ...[1001, 1002].flatMap((device) => [
          () => oscar('POST', `/v2/webhooks/${id}/devices/${device}`),
          () => oscar('DELETE', `/v2/webhooks/${id}/devices/${device}`),
          () => oscar('POST', `/v2/webhooks/${id}/devices/${device}/routes`, { scopeLevel: 'Device' }),
          () => oscar('POST', `/v2/webhooks/${id}/devices/${device}/routes`, { scopeLevel: 'Connection', connectionTag: `t${round}` }),
          () => oscar('POST', `/v2/webhooks/${id}/devices/${device}`),
          () => oscar('GET', `/v2/webhooks/${id}/devices/${device}/routes`),
        ]),
        () => oscar('PUT', `/v2/webhooks/${id}`, { ...hook, name: 'renamed' }),
        () => oscar('GET', `/v2/webhooks/${id}/devices`),
      ];
      // The delete goes somewhere in the middle, so some requests see the configuration and some do not.
      requests.splice(round % requests.length, 0, () => oscar('DELETE', `/v2/webhooks/${id}`));
      const results = await Promise.all(requests.map((send) => send()));
      for (const result of results) {
        statuses.add(result.status);
        expect(expected, JSON.stringify(result)).toContain(result.status);
      }
      await expectConsistent(id);
      expect(await api().store.getConfig(id)).toBeUndefined();
    }
    expect(statuses.has(404)).toBe(true);
  });

  it('keeps links and scopes consistent when unlink and scope requests race without a delete', async () => {
    const { id } = (await oscar('POST', '/v2/webhooks?companyId=1', hook)).body as { id: string };
    for (let round = 0; round < 6; round++) {
      const results = await Promise.all([
        oscar('POST', `/v2/webhooks/${id}/devices/1001`),
        oscar('POST', `/v2/webhooks/${id}/devices/1001/routes`, { scopeLevel: 'Device' }),
        oscar('POST', `/v2/webhooks/${id}/devices/1001/routes`, { scopeLevel: 'Device' }),
        oscar('DELETE', `/v2/webhooks/${id}/devices/1001`),
        oscar('POST', `/v2/webhooks/${id}/devices/1001/routes`, { scopeLevel: 'Connection', connectionTag: 'x' }),
        oscar('POST', `/v2/webhooks/${id}/devices/1001`),
      ]);
      for (const result of results) expect(expected, JSON.stringify(result)).toContain(result.status);
      await expectConsistent(id);
    }
  });
});
