// Registration against a real loopback ToolRegistry: renewed by heartbeats, renewed again after the
// registry forgets it, expired when heartbeats stop, retried while the gateway is down. The waits
// between calls and the registry's expiries run on a manual clock the tests move.
import { captureLogs, closedPort, manualClock, startRegistryFixture, until, type ManualClock, type RegistryFixture } from '@platform/tool-sdk/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createLogger } from '../service/logger.ts';
import { systemTimers, type Timers } from '../time/timers.ts';
import { backoffDelay, createGatewayRegistration, heartbeatDelay, type GatewayRegistration } from './gateway-registration.ts';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

let clock: ManualClock;
beforeEach(() => {
  clock = manualClock();
});

/** A registry on a free port (or `options.address`), judging expiry by the test's clock. */
async function registry(options: Parameters<typeof startRegistryFixture>[0] = {}): Promise<RegistryFixture> {
  const started = await startRegistryFixture({ clock, ...options });
  cleanups.push(() => started.close());
  return started;
}

function registrationAt(
  gatewayAddress: string,
  options: { accessToken?: () => Promise<string>; level?: 'debug' | 'info'; timers?: Timers } = {},
): { registration: GatewayRegistration; logs: string[] } {
  const logs = captureLogs();
  const created = createGatewayRegistration({
    gatewayAddress,
    serviceName: 'webhook-tools',
    callbackAddress: '127.0.0.1:50051',
    ttlSeconds: 30,
    accessToken: options.accessToken ?? counterTokens(),
    logger: createLogger({ name: 'registration-test', level: options.level ?? 'debug', destination: logs.destination }),
    backoff: { initialMs: 40, maxMs: 200 },
    callTimeoutMs: 1_000,
    timers: options.timers ?? clock,
  });
  cleanups.push(() => created.stop());
  return { registration: created, logs: logs.lines };
}

/** A new app token for every request, as a provider whose token rotates would hand out. */
function counterTokens(): () => Promise<string> {
  let issued = 0;
  return () => Promise.resolve(`app-token-${(issued += 1)}`);
}

/** App tokens whose first is handed out only on `release()`: a Register held on its way. */
function firstTokenHeld(): { accessToken: () => Promise<string>; firstAsked: () => Promise<void>; release: () => void } {
  let release: () => void = () => undefined;
  const held = new Promise<void>((resolve) => (release = resolve));
  let asked = 0;
  return {
    accessToken: async () => {
      asked += 1;
      if (asked === 1) await held;
      return `app-token-${asked}`;
    },
    firstAsked: () => until(() => asked >= 1, 'the first Register asks for its token'),
    release: () => {
      release();
    },
  };
}

/** Waits until the registration waits (for a heartbeat or a retry), then ends that wait on the clock; returns how long it was. */
async function endWait(): Promise<number> {
  await until(() => clock.pendingTimers().length > 0, 'the registration waits');
  const [waitMs = 0] = clock.pendingTimers();
  clock.advance(waitMs);
  return waitMs;
}

describe('gateway registration', () => {
  it('registers with the service name, callback address and ttl, and heartbeats keep it alive past its ttl', async () => {
    const gateway = await registry({ grantTtlSeconds: 1 });
    const { registration } = registrationAt(gateway.address);
    registration.start();
    await expect.poll(() => gateway.alive().length).toBe(1);
    expect(gateway.alive()[0]).toMatchObject({ serviceName: 'webhook-tools', callbackAddress: '127.0.0.1:50051', grantedTtlSeconds: 1 });
    const registered = clock();
    for (let heartbeat = 1; heartbeat <= 4; heartbeat += 1) {
      expect(await endWait()).toBe(heartbeatDelay(1));
      await expect.poll(() => gateway.alive()[0]?.heartbeats).toBe(heartbeat);
    }
    expect(clock() - registered).toBeGreaterThan(1_000);
    expect(gateway.alive()).toHaveLength(1);
    expect(registration.state).toMatchObject({ registrations: 1, heartbeats: 4, grantedTtlSeconds: 1 });
  });

  it('takes no longer a lifetime than it asked for, whatever the gateway grants', async () => {
    const gateway = await registry({ grantTtlSeconds: 4_294_967_295 });
    const { registration } = registrationAt(gateway.address);
    registration.start();
    await expect.poll(() => registration.state.grantedTtlSeconds).toBe(30);
    await until(() => clock.pendingTimers().length > 0, 'the registration waits for its first heartbeat');
    expect(clock.pendingTimers()).toEqual([heartbeatDelay(30)]);
    expect(gateway.calls).toHaveLength(1);
  });

  it('asks for the app token before every call instead of holding one', async () => {
    const gateway = await registry({ grantTtlSeconds: 1 });
    const { registration } = registrationAt(gateway.address);
    registration.start();
    await expect.poll(() => gateway.calls.length).toBe(1);
    for (let calls = 2; calls <= 4; calls += 1) {
      await endWait();
      await expect.poll(() => gateway.calls.length).toBe(calls);
    }
    const tokens = gateway.calls.map((call) => call.authorization);
    expect(new Set(tokens).size).toBe(tokens.length);
    expect(tokens.every((value) => value?.startsWith('Bearer app-token-'))).toBe(true);
  });

  it('registers again at once when the tools change while a Register is on its way, not a heartbeat later', async () => {
    const gateway = await registry();
    // The first Register waits for its app token until the tools have changed.
    const tokens = firstTokenHeld();
    const { registration } = registrationAt(gateway.address, { accessToken: tokens.accessToken });
    registration.start();
    await tokens.firstAsked();
    registration.announce();
    tokens.release();
    // No clock moves: the announcement made during the first Register is not left for the next wait's end.
    await until(() => registration.state.registrations === 2, 'registered again with the changed tools');
    expect(gateway.calls.filter((call) => call.method === 'Register')).toHaveLength(2);
  });

  it('stops at once when asked to while a Register is on its way, not after the next wait', async () => {
    const gateway = await registry();
    const tokens = firstTokenHeld();
    const { registration } = registrationAt(gateway.address, { accessToken: tokens.accessToken });
    registration.start();
    await tokens.firstAsked();
    const stopped = registration.stop();
    tokens.release();
    // No clock moves: the loop begins no wait once stopped, and deregisters what it registered.
    await stopped;
    expect(registration.state.registrationId).toBeUndefined();
    expect(gateway.alive()).toEqual([]);
  });

  it('registers again when the registry has forgotten it (a restarted gateway answers NOT_FOUND)', async () => {
    const gateway = await registry({ grantTtlSeconds: 1 });
    const { registration, logs } = registrationAt(gateway.address);
    registration.start();
    await expect.poll(() => gateway.alive().length).toBe(1);
    const first = gateway.alive()[0]?.registrationId;
    gateway.forgetAll();
    await endWait();
    await expect.poll(() => gateway.alive().length).toBe(1);
    expect(gateway.alive()[0]?.registrationId).not.toBe(first);
    expect(gateway.calls.some((call) => call.method === 'Heartbeat' && call.outcome === 'NOT_FOUND')).toBe(true);
    await expect.poll(() => registration.state.registrations).toBe(2);
    expect(logs.some((line) => line.includes('registering again'))).toBe(true);
  });

  it('lets the registration expire when heartbeats stop getting through, and registers again once they do', async () => {
    const gateway = await registry({ grantTtlSeconds: 1 });
    const { registration } = registrationAt(gateway.address);
    registration.start();
    await expect.poll(() => gateway.alive().length).toBe(1);
    gateway.refuseAll(true);
    // Refused heartbeats, retried with backoff, until the registration outlives its ttl on the clock.
    for (let tries = 0; tries < 30 && gateway.alive().length > 0; tries += 1) {
      const calls = gateway.calls.length;
      await endWait();
      await expect.poll(() => gateway.calls.length).toBe(calls + 1);
    }
    expect(gateway.alive()).toEqual([]);
    expect(gateway.calls.filter((call) => call.method === 'Heartbeat' && call.outcome === 'UNAVAILABLE').length).toBeGreaterThan(0);
    gateway.refuseAll(false);
    await endWait();
    await expect.poll(() => gateway.alive().length).toBe(1);
    // The registry holds it as soon as it has answered; the service counts it once the answer is in.
    await expect.poll(() => registration.state.registrations).toBe(2);
  });

  it('keeps trying with backoff while the gateway is down, and registers once it is up', async () => {
    const port = await closedPort();
    // Real time: once the gateway is up, grpc-js reconnects on its own backoff, which no clock of ours moves.
    const { registration, logs } = registrationAt(`127.0.0.1:${port}`, { timers: systemTimers });
    registration.start();
    await expect.poll(() => logs.filter((line) => line.includes('cannot register at the gateway')).length).toBeGreaterThanOrEqual(3);
    const attempts = logs.filter((line) => line.includes('cannot register')).map((line) => JSON.parse(line) as { attempt: number; retryInMs: number });
    expect(attempts.map((a) => a.attempt).slice(0, 3)).toEqual([1, 2, 3]);
    const gateway = await registry({ address: `127.0.0.1:${port}` });
    await expect.poll(() => gateway.alive().length, { timeout: 5_000 }).toBe(1);
  });

  it('says once that the gateway is down, not at every try', async () => {
    const port = await closedPort();
    let attempts = 0;
    const accessToken = () => Promise.resolve(`app-token-${(attempts += 1)}`);
    const { registration, logs } = registrationAt(`127.0.0.1:${port}`, { accessToken, level: 'info' });
    registration.start();
    for (let attempt = 2; attempt <= 6; attempt += 1) await endWait();
    await until(() => attempts === 6 && clock.pendingTimers().length > 0, 'the sixth attempt failed');
    await registration.stop();
    const warnings = logs.filter((line) => line.includes('cannot register at the gateway'));
    expect(warnings).toHaveLength(1);
    expect(JSON.parse(warnings[0] ?? '{}')).toMatchObject({ level: 40, attempt: 1, reason: expect.stringMatching(/^UNAVAILABLE: /) as unknown });
  });

  it('keeps trying while the platform cannot hand out an app token, and never logs a token', async () => {
    const gateway = await registry();
    let platformUp = false;
    let issued = 0;
    const { registration, logs } = registrationAt(gateway.address, {
      accessToken: () => (platformUp ? Promise.resolve(`app-token-${(issued += 1)}`) : Promise.reject(new Error('The platform could not be reached.'))),
    });
    registration.start();
    await endWait();
    await expect.poll(() => logs.filter((line) => line.includes('The platform could not be reached')).length).toBe(2);
    platformUp = true;
    await endWait();
    await expect.poll(() => gateway.alive().length).toBe(1);
    await registration.stop();
    expect(logs.join('\n')).not.toContain('app-token-');
  });

  it('deregisters on stop, once, and stops heartbeating', async () => {
    const gateway = await registry({ grantTtlSeconds: 1 });
    const { registration } = registrationAt(gateway.address);
    registration.start();
    await expect.poll(() => gateway.alive().length).toBe(1);
    await registration.stop();
    await registration.stop();
    expect(gateway.alive()).toEqual([]);
    const calls = gateway.calls.length;
    expect(gateway.calls.at(-1)).toMatchObject({ method: 'Deregister', outcome: 'ok' });
    // Nothing is left waiting to heartbeat: however far the clock moves, no call follows.
    expect(clock.pendingTimers()).toEqual([]);
    clock.advance(10 * heartbeatDelay(1));
    expect(gateway.calls).toHaveLength(calls);
  });

  it('stops promptly while it waits between attempts, with nothing to deregister', async () => {
    const port = await closedPort();
    const { registration, logs } = registrationAt(`127.0.0.1:${port}`);
    registration.start();
    await expect.poll(() => logs.some((line) => line.includes('cannot register'))).toBe(true);
    const started = Date.now();
    await registration.stop();
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(logs.some((line) => line.includes('deregister'))).toBe(false);
  });
});

describe('registration timing', () => {
  it('heartbeats at a third of the granted ttl, and at least every ten minutes', () => {
    expect(heartbeatDelay(30)).toBe(10_000);
    expect(heartbeatDelay(1)).toBe(333);
    expect(heartbeatDelay(86_400)).toBe(600_000);
    expect(heartbeatDelay(4_294_967_295)).toBe(600_000);
  });

  it('backs off by doubling up to the cap, jittered within the upper half', () => {
    expect([1, 2, 3, 4, 5, 10].map((failures) => backoffDelay(failures, 500, 4_000, () => 1))).toEqual([500, 1_000, 2_000, 4_000, 4_000, 4_000]);
    expect(backoffDelay(3, 500, 4_000, () => 0)).toBe(1_000);
  });
});
