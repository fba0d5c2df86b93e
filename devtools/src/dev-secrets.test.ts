import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadDevSecrets, secretNamesOf } from './dev-secrets.ts';

describe('dev secrets', () => {
  it('finds every environment reference of the default seed', () => {
    expect(secretNamesOf(resolve(import.meta.dirname, '../../dev-platform/seed.json'))).toEqual([
      'DEV_API_TOKEN_OSCAR',
      'FLEET_INSIGHTS_CLIENT_SECRET',
      'LEGACY_SYNC_CLIENT_SECRET',
      'MCP_GATEWAY_CLIENT_SECRET',
      'WEBHOOK_TOOLS_CLIENT_SECRET',
    ]);
  });

  it('generates missing secrets once into a 0600 file and reuses them; the environment wins', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'secrets-')), 'data/dev-secrets.env');
    const first = loadDevSecrets(['A_SECRET', 'B_SECRET'], file, {});
    expect(first.A_SECRET).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(loadDevSecrets(['A_SECRET', 'B_SECRET'], file, {})).toEqual(first);
    expect(loadDevSecrets(['A_SECRET'], file, { A_SECRET: 'from-env' }).A_SECRET).toBe('from-env');
    // A variable set to nothing (A_SECRET= in a shell) is not a secret: the stored one is used.
    expect(loadDevSecrets(['A_SECRET'], file, { A_SECRET: '' }).A_SECRET).toBe(first.A_SECRET);
    writeFileSync(file, readFileSync(file, 'utf8').replace(/^B_SECRET=.*$/m, ''));
    expect(loadDevSecrets(['A_SECRET', 'B_SECRET'], file, {}).A_SECRET).toBe(first.A_SECRET);
  });
});
