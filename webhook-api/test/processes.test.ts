// The deliverer and the API as separate processes on one database: a deliverer killed with SIGKILL
// again and again under continuous ingest loses no point; two deliverers on PostgreSQL share the
// work without sending anything twice; a second API process routes by the configuration as it is
// now, without a restart.
import { createLogger } from '@platform/tool-sdk';
import { startPlatform } from '@platform/dev-platform/testing';
import { closedPort, startedForTests, until } from '@platform/tool-sdk/testing';
import { describe, expect, inject, it } from 'vitest';
import { createDeliverer } from '../src/delivery/deliverer.ts';
import { createWebhookSender } from '../src/delivery/webhook-sender.ts';
import type { OutgoingDelivery } from '../src/delivery/outgoing.ts';
import { freshDatabase } from '@platform/devtools/postgres-cluster';
import { startReceiver, type Receiver } from './receiver.ts';
import { openPostgresDatabase } from '../src/database.ts';
import { deliveryChildEnv, killChild as kill, startedChild as startChild, type DatabaseEnv, databaseEnvOf } from './service-process.ts';
import { postTelemetry, startWebhookApi, telemetryPoint, testDeliverySettings, testIngestToken, type Backend, startedApiForTests } from './harness.ts';
import { deletedAfterEach, peopleForTests } from './people.ts';

const platform = startedForTests(() => startPlatform());
const boiler = 1001;
/** The children's in-flight limit per endpoint: what a kill can leave sent but not recorded, with the settlements not yet written. */
const perEndpoint = 8;
const childEnv = (database: DatabaseEnv, extra: Record<string, string>) =>
  deliveryChildEnv(database, { WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT: String(perEndpoint), ...extra });

/** The `seq` tag of every point a receiver got, Realtime envelopes. */
/** The seq tags of the points `receiver` got (at `path` only, when given). */
const seqsOf = (receiver: Receiver, path?: string) =>
  receiver.received.filter((r) => path === undefined || r.path === path).map((r) => Number((r.json as { Point: { Tags: { seq: string } } }).Point.Tags.seq));

describe.each<Backend>(['SQLite', 'PostgreSQL'])('processes on %s', (backend) => {
  // The API of the test runs no deliverer: the children do, on its store.
  const api = startedApiForTests(backend, () => platform().issuer);
  const { oscar } = peopleForTests(api);
  const database = (): DatabaseEnv => databaseEnvOf(api().location);
  const made = deletedAfterEach(oscar);

  async function hookTo(receiver: Receiver, name: string): Promise<{ id: string; routeId: string }> {
    const created = await oscar('POST', '/v2/webhooks?companyId=1', { name, url: `${receiver.url}/${name}`, deliveryMode: 'Realtime' });
    const id = (created.body as { id: string }).id;
    made.push(id);
    expect((await oscar('POST', `/v2/webhooks/${id}/devices/${boiler}`)).status).toBe(201);
    const route = await oscar('POST', `/v2/webhooks/${id}/devices/${boiler}/routes`, { scopeLevel: 'Device', enabled: true });
    return { id, routeId: (route.body as { id: string }).id };
  }

  it('a deliverer killed with SIGKILL five times under continuous ingest loses no point', { timeout: 120_000 }, async () => {
    const receiver = await startReceiver();
    const { id } = await hookTo(receiver, 'crash');
    let ingested = 0;
    /** Boxed: the loop below reads what the finally block sets. */
    const feed = { on: true };
    const feeder = (async () => {
      while (feed.on) {
        const answer = await api().ingest([telemetryPoint(boiler, { tags: { seq: String(ingested) } })]);
        if (answer.status !== 202) throw new Error(`ingest answered ${answer.status}`);
        ingested += 1;
        await new Promise((r) => setTimeout(r, 5));
      }
    })();
    try {
      for (let kills = 0; kills < 5; kills++) {
        const port = await closedPort();
        const child = await startChild('deliverer-main.ts', childEnv(database(), { WEBHOOK_DELIVERER_PORT: String(port) }), port);
        const seen = receiver.received.length;
        await until(() => receiver.received.length >= seen + 20, `deliverer ${kills + 1} delivers`, 20_000);
        await kill(child);
      }
      feed.on = false;
      await feeder;
      const port = await closedPort();
      const last = await startChild('deliverer-main.ts', childEnv(database(), { WEBHOOK_DELIVERER_PORT: String(port) }), port);
      try {
        await until(() => new Set(seqsOf(receiver)).size >= ingested, `all ${ingested} points delivered`, 60_000);
        // What a killed deliverer sent but could not record is sent again once its lease runs out.
        await until(async () => (await api().store.deliveries.stats()).queued === 0, 'the queue drained', 30_000);
      } finally {
        await kill(last, 'SIGTERM');
      }
      const seqs = new Set(seqsOf(receiver));
      const missing = Array.from({ length: ingested }, (_, i) => i).filter((i) => !seqs.has(i));
      expect(missing).toEqual([]);
      expect(ingested).toBeGreaterThan(100);
      // At least once: a kill repeats what was in flight or sent but not yet recorded, never more.
      expect(receiver.received.length - seqs.size).toBeLessThanOrEqual(5 * 2 * perEndpoint);
      expect(id).toBeTruthy();
    } finally {
      feed.on = false;
      await feeder.catch(() => undefined);
      await receiver.close();
    }
  });

  it('a second API process routes every point by the configuration as it is now', { timeout: 60_000 }, async () => {
    const receiver = await startReceiver();
    const { id, routeId } = await hookTo(receiver, 'second-process');
    const apiPort = await closedPort();
    const delivererPort = await closedPort();
    const second = await startChild(
      'main.ts',
      childEnv(database(), {
        WEBHOOK_API_PORT: String(apiPort),
        WEBHOOK_INGEST_TOKEN: testIngestToken,
        WEBHOOK_RUN_DELIVERER: 'false',
        PLATFORM_API_BASE_URL: platform().issuer,
      }),
      apiPort,
    );
    const deliverer = await startChild('deliverer-main.ts', childEnv(database(), { WEBHOOK_DELIVERER_PORT: String(delivererPort) }), delivererPort);
    const secondUrl = `http://127.0.0.1:${apiPort}`;
    /** Ingests a point through the second API; it says how many deliveries the point queued, by the configuration as it was. */
    const send = async (step: string, queued: 0 | 1) => {
      const answer = await postTelemetry(secondUrl, [telemetryPoint(boiler, { tags: { seq: '0', step } })]);
      expect(answer.status).toBe(202);
      expect(answer.body).toEqual({ accepted: 1, queued });
    };
    const steps = () => receiver.received.map((r) => (r.json as { Point: { Tags: { step: string } } }).Point.Tags.step);
    const route = (enabled: boolean) => oscar('PUT', `/v2/webhooks/${id}/devices/${boiler}/routes/${routeId}`, { scopeLevel: 'Device', enabled });
    try {
      await send('enabled', 1);
      await receiver.waitFor(1);
      await route(false);
      await send('disabled', 0);
      await route(true);
      await send('enabled again', 1);
      await receiver.waitFor(2);
      expect((await oscar('DELETE', `/v2/webhooks/${id}/devices/${boiler}/routes/${routeId}`)).status).toBe(204);
      await send('scope removed', 0);
      const added = await oscar('POST', `/v2/webhooks/${id}/devices/${boiler}/routes`, { scopeLevel: 'Connection', connectionTag: 'modbus', enabled: true });
      expect(added.status).toBe(201);
      await send('scope added', 1);
      await receiver.waitFor(3);
      expect((await oscar('DELETE', `/v2/webhooks/${id}/devices/${boiler}`)).status).toBe(204);
      await send('unlinked', 0);
      // A second configuration, deleted: nothing for it either.
      const other = await hookTo(receiver, 'second-process-deleted');
      await send('other linked', 1);
      await receiver.waitFor(4);
      expect((await oscar('DELETE', `/v2/webhooks/${other.id}`)).status).toBe(200);
      await send('deleted', 0);
      // Every point that queued nothing is accounted for by its answer; the four that queued one have arrived.
      expect(steps()).toEqual(['enabled', 'enabled again', 'scope added', 'other linked']);
    } finally {
      await kill(second, 'SIGTERM');
      await kill(deliverer, 'SIGTERM');
      await receiver.close();
    }
  });
});

describe('two deliverers on PostgreSQL', () => {
  it('hear of new work by NOTIFY, share the endpoints between them and send nothing twice while both are healthy', { timeout: 60_000 }, async () => {
    const url = await freshDatabase(inject('postgresUrl'));
    const api = await startWebhookApi({
      location: { backend: 'PostgreSQL', open: () => openPostgresDatabase(url, { maxConnections: 4 }) },
      platformUrl: platform().issuer,
    });
    const receiver = await startReceiver({ respond: () => ({ status: 200, delayMs: 10 }) });
    const stores = await Promise.all([openPostgresDatabase(url, { maxConnections: 4 }), openPostgresDatabase(url, { maxConnections: 4 })]);
    const sent = [0, 0];
    const deliverers = stores.map((store, i) => {
      const sender = createWebhookSender({ decryptCredentials: (stored, boundTo) => api.vault.decrypt(stored, boundTo), allowPrivateTargets: true });
      return createDeliverer({
        queue: store.deliveries,
        // A poll a minute apart: only NOTIFY from the API's process can tell them of the work.
        settings: { ...testDeliverySettings, maxInFlightPerEndpoint: 4, pollMs: 60_000 },
        logger: createLogger({ name: `deliverer-${i}`, level: 'warn' }),
        sender: {
          send: (delivery: OutgoingDelivery, signal?: AbortSignal) => {
            sent[i] = (sent[i] ?? 0) + 1;
            return sender.send(delivery, signal);
          },
          close: () => sender.close(),
        },
      });
    });
    try {
      await Promise.all(deliverers.map((d) => d.start()));
      const oscar = await api.clientAs('oscar');
      // Two endpoints: an endpoint's log is sent by one deliverer at a time (its cursor's holder).
      for (const name of ['shared-a', 'shared-b']) {
        const created = await oscar('POST', '/v2/webhooks?companyId=1', { name, url: `${receiver.url}/${name}`, deliveryMode: 'Realtime' });
        const id = (created.body as { id: string }).id;
        await oscar('POST', `/v2/webhooks/${id}/devices/${boiler}`);
        await oscar('POST', `/v2/webhooks/${id}/devices/${boiler}/routes`, { scopeLevel: 'Device', enabled: true });
      }
      // Both have looked and found nothing; their next poll is a minute away, so only NOTIFY can wake them in time.
      await Promise.all(deliverers.map((d) => d.whenIdle()));
      const total = 600;
      for (let start = 0; start < total; start += 100) {
        const answer = await api.ingest(Array.from({ length: 100 }, (_, i) => telemetryPoint(boiler, { tags: { seq: String(start + i) } })));
        expect(answer.status).toBe(202);
      }
      await until(() => receiver.received.length >= 2 * total, `${total} points delivered to each endpoint`, 20_000);
      await Promise.all(deliverers.map((d) => d.whenIdle()));
      for (const name of ['shared-a', 'shared-b']) {
        const seqs = seqsOf(receiver, `/${name}`);
        expect(seqs).toHaveLength(total);
        expect(new Set(seqs).size).toBe(total);
      }
      expect(sent[0]).toBeGreaterThan(0);
      expect(sent[1]).toBeGreaterThan(0);
      expect((sent[0] ?? 0) + (sent[1] ?? 0)).toBe(2 * total);
    } finally {
      await Promise.all(deliverers.map((d) => d.stop(0)));
      await Promise.all(stores.map((s) => s.close()));
      await receiver.close();
      await api.close();
    }
  });
});
