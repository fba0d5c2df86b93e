// Revocation at once, as SPEC asks of the platform API the webhook API belongs to: a role removed or
// consent withdrawn at the platform is refused within the permissions max age, measured on the
// caller cache's own clock, while a caller who keeps calling is still answered from the cache (the
// platform asked about once per half max age, not once per request).
import { delegatedToken, personToken, sendJson, startProxiedPlatform, type ProxiedPlatform } from '@platform/dev-platform/testing';
import { manualClock, type ManualClock } from '@platform/tool-sdk/testing';
import { describe, expect, inject, it } from 'vitest';
import { defaultPermissionsMaxAgeMs } from '../src/http/caller-guard.ts';
import { apiClient, newStoreLocation, startWebhookApi, type ApiClient, type Backend, type RunningApi } from './harness.ts';

const bound = defaultPermissionsMaxAgeMs;
const list = '/v2/webhooks?companyId=1';

interface World {
  readonly platform: ProxiedPlatform;
  readonly api: RunningApi;
  readonly clock: ManualClock;
  /** olivia, owner of company 1, administers it at the platform. */
  readonly olivia: string;
}

/** A platform and an API of the test's own, so what it revokes touches no other test. */
async function withWorld(backend: Backend, test: (world: World) => Promise<void>): Promise<void> {
  const platform = await startProxiedPlatform();
  const clock = manualClock(Date.now());
  const api = await startWebhookApi({ location: await newStoreLocation(backend, inject('postgresUrl')), platformUrl: platform.issuer, clock });
  try {
    await test({ platform, api, clock, olivia: await personToken(platform.issuer, 'olivia') });
  } finally {
    await api.close();
    await platform.close();
  }
}

/**
 * Calls `GET list` once per step, moving the cache's clock on by each step first; stops at the first
 * refusal and answers how long after `revokedAt` (clock time) it came, with every status seen.
 */
async function refusedAfter(
  client: ApiClient,
  clock: ManualClock,
  steps: readonly number[],
  revokedAt = clock(),
): Promise<{ after: number | undefined; statuses: number[] }> {
  const statuses: number[] = [];
  for (const step of steps) {
    clock.advance(step);
    const { status } = await client('GET', list);
    statuses.push(status);
    if (status !== 200) return { after: clock() - revokedAt, statuses };
  }
  return { after: undefined, statuses };
}

/** Requests every 100 ms of the cache's clock, for twice the bound. */
const steady = Array.from({ length: (2 * bound) / 100 }, () => 100);

describe.each<Backend>(['SQLite', 'PostgreSQL'])('revocation at the webhook API on %s', (backend) => {
  it('refuses oscar at the max age after his role is removed, asking the platform nothing before half of it', async () => {
    await withWorld(backend, async ({ platform, api, clock, olivia }) => {
      const oscar = apiClient(api.url, `Bearer ${await personToken(platform.issuer, 'oscar')}`);
      expect((await oscar('GET', list)).status).toBe(200);
      const removed = await sendJson('PUT', `${platform.issuer}/api/companies/1/role-assignments/u-oscar`, olivia, { roles: [] });
      expect(removed.status).toBe(200);
      const revokedAt = clock();
      const checks = platform.proxy.meChecks;
      clock.advance(bound / 2 - 1);
      expect((await oscar('GET', list)).status).toBe(200);
      expect(platform.proxy.meChecks).toBe(checks);

      // The worst case: an answer checked just before the removal serves until the max age, no longer.
      const refusal = await refusedAfter(oscar, clock, [bound / 2, 1], revokedAt);
      expect(refusal).toEqual({ after: bound, statuses: [200, 403] });
      expect(platform.proxy.meChecks - checks).toBeGreaterThanOrEqual(1);
      const answer = await oscar('GET', list);
      expect(answer).toMatchObject({ status: 403, body: { error: { code: 'FORBIDDEN', message: 'device-overview:view is needed at company 1' } } });
    });
  });

  it('under steady calls, refuses oscar within the max age of his role being removed, asking the platform about once per half max age', async () => {
    await withWorld(backend, async ({ platform, api, clock, olivia }) => {
      const oscar = apiClient(api.url, `Bearer ${await personToken(platform.issuer, 'oscar')}`);
      expect((await oscar('GET', list)).status).toBe(200);
      // Half the max age into the answer's life, so the next refresh is due as the removal lands.
      clock.advance(bound / 2);
      await sendJson('PUT', `${platform.issuer}/api/companies/1/role-assignments/u-oscar`, olivia, { roles: [] });
      const checks = platform.proxy.meChecks;
      const { after, statuses } = await refusedAfter(oscar, clock, steady);
      expect(after).toBeDefined();
      expect(after).toBeLessThanOrEqual(bound);
      expect(statuses.slice(0, -1).every((status) => status === 200)).toBe(true);
      // Identity stays cached: requests every 100 ms cost a check per half max age, not one each.
      expect(platform.proxy.meChecks - checks).toBeLessThanOrEqual(Math.ceil((after ?? 0) / (bound / 2)) + 1);
    });
  });

  it('refuses a delegated token within the max age once the company withdraws the app’s consent', async () => {
    await withWorld(backend, async ({ platform, api, clock, olivia }) => {
      const tools = apiClient(api.url, `Bearer ${await delegatedToken(platform.issuer, 'oscar')}`);
      expect((await tools('GET', list)).status).toBe(200);
      const withdrawn = await sendJson('PUT', `${platform.issuer}/api/companies/1/apps/webhook-tools/consent`, olivia, { permissions: [] });
      expect(withdrawn.status).toBe(200);
      const worstCase = await refusedAfter(tools, clock, [bound - 1, 1]);
      expect(worstCase).toEqual({ after: bound, statuses: [200, 403] });
      // oscar's own token keeps his rights: only the app's were withdrawn.
      const own = apiClient(api.url, `Bearer ${await personToken(platform.issuer, 'oscar')}`);
      expect((await own('GET', list)).status).toBe(200);
    });
  });
});
