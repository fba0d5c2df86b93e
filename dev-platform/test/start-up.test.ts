import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';
import { listenOnFreePort } from '@platform/tool-sdk/testing';
import { describe, expect, it } from 'vitest';
import { devSecrets } from './dev-env.ts';
import { sourceCondition } from '@platform/devtools/source-condition';

const main = resolve(import.meta.dirname, '../src/main.ts');
const start = (env: Record<string, string>) =>
  spawnSync(process.execPath, [sourceCondition, main], { env: { PATH: process.env.PATH ?? '', ...devSecrets, ...env }, encoding: 'utf8', timeout: 20_000 });

describe('starting the dev platform', () => {
  it('names the port and the variable that moves it, in one line, when the port is taken', async () => {
    const taken = await listenOnFreePort();
    const port = new URL(taken.url).port;
    try {
      const run = start({ PLATFORM_PORT: port, PLATFORM_AI_PORT: '0', LOG_LEVEL: 'silent' });
      expect(run.status).toBe(1);
      expect(run.stderr.trim().split('\n')).toHaveLength(1);
      expect(run.stderr.trim()).toBe(`dev-platform cannot start: port ${port} on 127.0.0.1 is already in use; set PLATFORM_PORT to another port`);
      expect(run.stderr).not.toMatch(/^\s+at /m);
    } finally {
      await taken.close();
    }
  });

  it('names every bad variable in one line, without a stack trace', () => {
    const run = start({ PLATFORM_PORT: 'http', PLATFORM_EXTRA_RESOURCES: 'nope' });
    expect(run.status).toBe(1);
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
    expect(run.stderr).toContain('PLATFORM_PORT must be a port number');
    expect(run.stderr).toContain('PLATFORM_EXTRA_RESOURCES must be an absolute http or https URL');
  });
});
