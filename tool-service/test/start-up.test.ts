// The tool service as `npm start -w tool-service` runs it: a start-up failure is one line naming
// what to fix; a good start serves gRPC with health until SIGTERM stops it.
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { devSecrets, startPlatform } from '@platform/dev-platform/testing';
import { closedPort, healthStatus, listenOnFreePort, startedForTests, toolClient } from '@platform/tool-sdk/testing';
import { describe, expect, it } from 'vitest';
import { sourceCondition } from '@platform/devtools/source-condition';
import { killedIfTestFails } from '@platform/devtools/test-processes';

const main = resolve(import.meta.dirname, '../src/main.ts');
const baseEnv = { PATH: process.env.PATH ?? '' };
const start = (env: Record<string, string>) =>
  spawnSync(process.execPath, [sourceCondition, main], { env: { ...baseEnv, ...env }, encoding: 'utf8', timeout: 20_000 });

describe('starting the tool service', () => {
  it('names APP_CLIENT_SECRET in one line when it is missing', () => {
    const run = start({});
    expect(run.status).toBe(1);
    expect(run.stderr).toBe('tool-service cannot start: Invalid settings: APP_CLIENT_SECRET is required.\n');
  });

  it('names the address and CALLBACK_ADDRESS in one line when the port is taken', async () => {
    const taken = await listenOnFreePort();
    const address = taken.url.replace('http://', '');
    try {
      const run = start({ APP_CLIENT_SECRET: 'never-shown-secret', CALLBACK_ADDRESS: address, LOG_LEVEL: 'silent' });
      expect(run.status).toBe(1);
      expect(run.stderr).toBe(`tool-service cannot start: ${address} is already in use; set CALLBACK_ADDRESS to another host:port\n`);
      expect(run.stdout + run.stderr).not.toContain('never-shown-secret');
    } finally {
      await taken.close();
    }
  });

  describe('with a platform', () => {
    const platform = startedForTests(() => startPlatform());

    it('serves the tools with health on CALLBACK_ADDRESS, and stops on SIGTERM', async () => {
      const port = await closedPort();
      const child = killedIfTestFails(
        spawn(process.execPath, [sourceCondition, main], {
          env: {
            ...baseEnv,
            PLATFORM_API_BASE_URL: platform().issuer,
            APP_CLIENT_SECRET: devSecrets.WEBHOOK_TOOLS_CLIENT_SECRET,
            CALLBACK_ADDRESS: `127.0.0.1:${port}`,
            // No gateway listens here: the service keeps serving and retries in the background.
            GATEWAY_ADDRESS: '127.0.0.1:9',
          },
          stdio: ['ignore', 'pipe', 'pipe'],
        }),
      );
      try {
        const logged: Record<string, unknown>[] = [];
        for await (const line of createInterface({ input: child.stdout })) {
          logged.push(JSON.parse(line) as Record<string, unknown>);
          if (String(logged.at(-1)?.msg).startsWith('serving')) break;
        }
        expect(logged.at(-1)).toMatchObject({ name: 'tool-service', msg: 'serving 27 tools over gRPC', address: `127.0.0.1:${port}` });

        const client = toolClient(`127.0.0.1:${port}`);
        expect((await client.list()).map((tool) => tool.name)).toContain('create_webhook');
        client.close();
        expect(await healthStatus(`127.0.0.1:${port}`)).toBe('SERVING');

        child.kill('SIGTERM');
        const [code] = (await once(child, 'exit')) as [number];
        expect(code).toBe(0);
      } finally {
        if (child.exitCode === null) child.kill('SIGKILL');
      }
    });
  });
});
