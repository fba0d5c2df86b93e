// The tool service as a process (`npm start -w tool-service`'s main.ts) against a real loopback
// ToolRegistry: it registers with its app token and the address it serves on, heartbeats keep the
// registration alive past its ttl, a killed service's registration expires, and a stopped one
// deregisters.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { resolve } from 'node:path';
import { delegatedToken, devSecrets, startPlatform } from '@platform/dev-platform/testing';
import { manualClock, startedForTests, startRegistryFixture, toolClient, type RegistryFixture, type RegistryFixtureOptions } from '@platform/tool-sdk/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { sourceCondition } from '@platform/devtools/source-condition';
import { killedIfTestFails } from '@platform/devtools/test-processes';

const platform = startedForTests(() => startPlatform());
const children: ChildProcess[] = [];
const registries: RegistryFixture[] = [];
afterEach(async () => {
  for (const child of children.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await Promise.all(registries.splice(0).map((registry) => registry.close()));
});

async function registry(options: RegistryFixtureOptions = {}): Promise<RegistryFixture> {
  const started = await startRegistryFixture({ grantTtlSeconds: 1, ...options });
  registries.push(started);
  return started;
}

function startService(gatewayAddress: string): { child: ChildProcess; output: string[] } {
  const child = killedIfTestFails(
    spawn(process.execPath, [sourceCondition, resolve(import.meta.dirname, '../src/main.ts')], {
      env: {
        PATH: process.env.PATH,
        PLATFORM_API_BASE_URL: platform().issuer,
        APP_CLIENT_SECRET: devSecrets.WEBHOOK_TOOLS_CLIENT_SECRET,
        GATEWAY_ADDRESS: gatewayAddress,
        CALLBACK_ADDRESS: '127.0.0.1:0',
        TOOL_REGISTRATION_TTL_SECONDS: '1',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    }),
  );
  children.push(child);
  const output: string[] = [];
  child.stdout.on('data', (chunk: Buffer) => output.push(chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => output.push(chunk.toString()));
  return { child, output };
}

describe('the tool service at the gateway', () => {
  it('registers with its app token and the address it serves on, and heartbeats keep it past its ttl', async () => {
    const gateway = await registry();
    startService(gateway.address);
    await expect.poll(() => gateway.alive().length, { timeout: 10_000 }).toBe(1);
    const [registration] = gateway.alive();
    expect(registration).toMatchObject({ serviceName: 'webhook-tools', grantedTtlSeconds: 1 });
    expect(gateway.calls[0]?.authorization).toMatch(/^Bearer ey/);

    // Real time: the service is another process, heartbeating on its own timers a third of the ttl
    // apart; the fourth heartbeat renews the registration past its first second.
    await expect.poll(() => gateway.alive()[0]?.heartbeats ?? 0, { timeout: 10_000 }).toBeGreaterThanOrEqual(4);
    expect(gateway.alive().map((alive) => alive.registrationId)).toEqual([registration?.registrationId]);
    expect(gateway.calls.filter((call) => call.method === 'Register')).toHaveLength(1);

    // The gateway reaches the service at the registered callback address.
    const client = toolClient(registration?.callbackAddress ?? '');
    expect(await client.call('whoami', {}, await delegatedToken(platform().issuer, 'oscar'))).toMatchObject({ ok: true, result: { userId: 'u-oscar' } });
    client.close();
  });

  it('lets the registration expire when the service dies without a word', async () => {
    const clock = manualClock(Date.now());
    const gateway = await registry({ clock });
    const { child } = startService(gateway.address);
    await expect.poll(() => gateway.alive().length, { timeout: 10_000 }).toBe(1);
    child.kill('SIGKILL');
    await once(child, 'exit');
    clock.advance(999);
    expect(gateway.alive()).toHaveLength(1);
    clock.advance(1);
    expect(gateway.alive()).toEqual([]);
    expect(gateway.calls.some((call) => call.method === 'Deregister')).toBe(false);
  });

  it('deregisters and exits cleanly on SIGTERM, and logs no token', async () => {
    const gateway = await registry();
    const { child, output } = startService(gateway.address);
    await expect.poll(() => gateway.alive().length, { timeout: 10_000 }).toBe(1);
    child.kill('SIGTERM');
    const [code] = (await once(child, 'exit')) as [number | null];
    expect(code).toBe(0);
    expect(gateway.calls.at(-1)).toMatchObject({ method: 'Deregister', outcome: 'ok' });
    expect(gateway.alive()).toEqual([]);
    const tokens = gateway.calls.map((call) => call.authorization?.replace('Bearer ', '') ?? '');
    for (const token of tokens) expect(output.join('')).not.toContain(token);
    expect(output.join('')).not.toContain(devSecrets.WEBHOOK_TOOLS_CLIENT_SECRET);
  });

  it('keeps serving while the gateway is down, and registers once it is up', async () => {
    const gateway = await registry();
    const address = gateway.address;
    await gateway.close();
    registries.splice(0);
    const { output } = startService(address);
    await expect.poll(() => output.join('').includes('cannot register at the gateway'), { timeout: 10_000 }).toBe(true);
    const serving = /"address":"(127\.0\.0\.1:\d+)"/.exec(output.join(''))?.[1] ?? '';
    const client = toolClient(serving);
    expect(await client.call('whoami', {}, await delegatedToken(platform().issuer, 'vera'))).toMatchObject({ ok: true });
    client.close();
    const back = await startRegistryFixture({ grantTtlSeconds: 1, address });
    registries.push(back);
    await expect.poll(() => back.alive().length, { timeout: 10_000 }).toBe(1);
  });
});
