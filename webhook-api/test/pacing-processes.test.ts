// Rate limits and ordered delivery across deliverer processes, on SQLite and PostgreSQL: two
// deliverers (`npm run deliverer` as its own process each) share the work of one configuration, one
// of them is killed with SIGKILL midway, and the endpoint still gets no more than its rate, every
// point at least once.
import type { ChildProcess } from 'node:child_process';
import { startPlatform } from '@platform/dev-platform/testing';
import { closedPort, startedForTests, until } from '@platform/tool-sdk/testing';
import { describe, expect, it } from 'vitest';
import { telemetryPoint, type Backend, startedApiForTests } from './harness.ts';
import { peopleForTests } from './people.ts';
import { mostInAnyWindow, orderedArrivals, startReceiver, type Receiver } from './receiver.ts';
import { deliveryChildEnv, killChild, startedChild, type DatabaseEnv, databaseEnvOf } from './service-process.ts';

const platform = startedForTests(() => startPlatform());
const boiler = 1001;

describe.each<Backend>(['SQLite', 'PostgreSQL'])('pacing across deliverer processes on %s', (backend) => {
  // The API of the test runs no deliverer: the children do, on its store.
  const api = startedApiForTests(backend, () => platform().issuer);
  const { oscar } = peopleForTests(api);
  const database = (): DatabaseEnv => databaseEnvOf(api().location);

  async function hook(receiver: Receiver, name: string, fields: Record<string, unknown>): Promise<string> {
    const created = await oscar('POST', '/v2/webhooks?companyId=1', { name, url: `${receiver.url}/${name}`, deliveryMode: 'Realtime', ...fields });
    expect(created.status).toBe(201);
    const { id } = created.body as { id: string };
    for (const device of [1001, 1002]) {
      await oscar('POST', `/v2/webhooks/${id}/devices/${device}`);
      await oscar('POST', `/v2/webhooks/${id}/devices/${device}/routes`, { scopeLevel: 'Connection', connectionTag: name });
    }
    return id;
  }
  async function deliverer(): Promise<ChildProcess> {
    const port = await closedPort();
    return startedChild('deliverer-main.ts', deliveryChildEnv(database(), { WEBHOOK_DELIVERER_PORT: String(port) }), port);
  }

  it('keeps to the rate limit with two deliverers, one killed with SIGKILL midway, and loses no point', { timeout: 90_000 }, async () => {
    const receiver = await startReceiver();
    const children: ChildProcess[] = [];
    try {
      const rate = 10;
      const id = await hook(receiver, 'paced', { rateLimitPerSecond: rate });
      const total = 50;
      await api().ingest(Array.from({ length: total }, (_, i) => telemetryPoint(boiler, { connectionTag: 'paced', tags: { seq: String(i) } })));
      children.push(await deliverer(), await deliverer());
      await until(() => receiver.received.length >= 15, 'both deliverers under way', 30_000);
      await killChild(children[0] as ChildProcess);
      const seqs = () => new Set(receiver.received.map((r) => (r.json as { Point: { Tags: { seq: string } } }).Point.Tags.seq));
      await until(() => seqs().size >= total, `all ${total} points delivered`, 60_000);
      await until(async () => (await api().store.deliveries.stats()).queued === 0, 'the queue drained', 30_000);
      // Slots are 100 ms apart whoever sends: at most the rate in any second, give or take a timer that fired late.
      expect(mostInAnyWindow(receiver.received)).toBeLessThanOrEqual(rate + 2);
      const first = receiver.received[0]?.at ?? 0;
      const last = receiver.received.at(-1)?.at ?? 0;
      expect((receiver.received.length - 1) / ((last - first) / 1000)).toBeLessThanOrEqual(rate * 1.05);
      expect(id).toBeTruthy();
    } finally {
      for (const child of children) await killChild(child, 'SIGTERM');
      await receiver.close();
    }
  });

  it(
    'keeps each device’s points in order with two deliverers, one killed with SIGKILL midway, retries among them, and loses no point',
    { timeout: 90_000 },
    async () => {
      const arrivals = orderedArrivals();
      const failedOnce = new Set<string>();
      // Every seventh point of a device fails its first attempt: a retry holds back the device's later ones.
      const receiver = await startReceiver({
        respond: arrivals.responder((request) => {
          const { device, seq } = (request.json as { Point: { Tags: { device: string; seq: string } } }).Point.Tags;
          const key = `${device}/${seq}`;
          if (Number(seq) % 7 === 3 && !failedOnce.has(key)) {
            failedOnce.add(key);
            return { status: 503 };
          }
          return { status: 204, delayMs: 3 };
        }),
      });
      const children: ChildProcess[] = [];
      try {
        await hook(receiver, 'ordered', { ordering: 'PerDevice' });
        const total = 30;
        const devices = [1001, 1002];
        await api().ingest(
          Array.from({ length: total }, (_, seq) =>
            devices.map((device) => telemetryPoint(device, { connectionTag: 'ordered', tags: { device: String(device), seq: String(seq) } })),
          ).flat(),
        );
        children.push(await deliverer(), await deliverer());
        await until(() => receiver.received.length >= 20, 'both deliverers under way', 30_000);
        await killChild(children[0] as ChildProcess);
        const delivered = (device: number) => new Set(arrivals.seqs('/ordered', device));
        await until(() => devices.every((device) => delivered(device).size >= total), `all ${total} points of each device delivered`, 60_000);
        await until(async () => (await api().store.deliveries.stats()).queued === 0, 'the queue drained', 30_000);
        for (const device of devices) {
          const seqs = arrivals.seqs('/ordered', device).map(Number);
          // In ingest order: a point comes again only when it was retried or its deliverer died before recording it, never after a later one.
          expect(
            seqs.every((seq, i) => i === 0 || seq >= (seqs[i - 1] ?? 0)),
            `device ${device}: ${seqs.join(',')}`,
          ).toBe(true);
        }
        expect(arrivals.mostAtOnce('/ordered')).toBe(1);
      } finally {
        for (const child of children) await killChild(child, 'SIGTERM');
        await receiver.close();
      }
    },
  );
});
