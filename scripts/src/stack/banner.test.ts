import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { defaultSeedPath, metricsTokenSource, seededPeople, stackBanner, type MetricsTokenSource } from './banner.ts';
import { stackAddresses, stackProcesses } from './processes.ts';

describe('the npm start banner', () => {
  it("shows the repository seed's published dev passwords, and only the names of another seed's people", () => {
    expect(seededPeople(defaultSeedPath)).toContainEqual({ username: 'oscar', password: 'oscar-dev-password' });
    const own = join(mkdtempSync(join(tmpdir(), 'seed-')), 'seed.json');
    writeFileSync(own, JSON.stringify({ users: [{ username: 'ann', password: 'a-real-password' }] }));
    expect(seededPeople(own)).toEqual([{ username: 'ann' }]);
  });

  it("names this run's addresses, moved ports included, and every way to connect", () => {
    const env = { PLATFORM_PORT: '4400', MCP_PORT: '3300', WEBHOOK_API_PORT: '4500' };
    const processes = stackProcesses(env, {}, 'embedded', { person: 'oscar', secretNames: [] });
    const banner = stackBanner({
      processes,
      readiness: new Map([['tool-service', 'the gateway lists 18 tools to oscar']]),
      addresses: stackAddresses(env, 'embedded'),
      people: [{ username: 'oscar', password: 'oscar-dev-password' }],
      secretsFile: '/repo/data/dev-secrets.env',
      stackFile: 'data/stack.json',
      metricsToken: 'secrets-file',
    });
    for (const text of [
      'http://127.0.0.1:4400 (OAuth issuer',
      'http://127.0.0.1:4500 (webhook REST API',
      'http://127.0.0.1:3300/mcp (MCP gateway',
      'the gateway lists 18 tools to oscar',
      'npx @modelcontextprotocol/inspector --cli http://127.0.0.1:3300/mcp --transport http',
      'npx mcp-remote http://127.0.0.1:3300/mcp',
      '"args":["mcp-remote","http://127.0.0.1:3300/mcp"]',
      'oscar / oscar-dev-password',
      "these commands find this stack's addresses in data/stack.json",
    ]) {
      expect(banner).toContain(text);
    }
    expect(banner).not.toContain(':4000');
    expect(banner).not.toContain(':3000');
  });

  it('says where the /metrics token is and how to send it, never the token itself', () => {
    const env = { WEBHOOK_METRICS_TOKEN: 'a-token-the-banner-must-not-show' };
    const bannerFor = (metricsToken: MetricsTokenSource) =>
      stackBanner({
        processes: stackProcesses(env, { WEBHOOK_METRICS_TOKEN: 'a-generated-token-not-shown' }, 'embedded', { person: 'oscar', secretNames: [] }),
        readiness: new Map(),
        addresses: stackAddresses(env, 'embedded'),
        people: [],
        secretsFile: '/elsewhere/dev-secrets.env',
        stackFile: 'data/stack.json',
        metricsToken,
      });
    const generated = bannerFor('secrets-file');
    expect(generated).toContain('GET http://127.0.0.1:4100/metrics: asks for WEBHOOK_METRICS_TOKEN (in /elsewhere/dev-secrets.env) as a bearer token');
    expect(generated).toContain(
      'curl -H "Authorization: Bearer $(grep ^WEBHOOK_METRICS_TOKEN= /elsewhere/dev-secrets.env | cut -d= -f2)" http://127.0.0.1:4100/metrics',
    );
    expect(bannerFor('environment')).toContain('asks for your WEBHOOK_METRICS_TOKEN as a bearer token');
    expect(bannerFor('public')).toContain('open to anyone who reaches the port (WEBHOOK_METRICS_PUBLIC=true)');
    for (const banner of [generated, bannerFor('environment'), bannerFor('public')]) {
      expect(banner).not.toContain('a-token-the-banner-must-not-show');
      expect(banner).not.toContain('a-generated-token-not-shown');
    }
    expect([metricsTokenSource({}), metricsTokenSource(env), metricsTokenSource({ ...env, WEBHOOK_METRICS_PUBLIC: 'true' })]).toEqual([
      'secrets-file',
      'environment',
      'public',
    ]);
  });
});
