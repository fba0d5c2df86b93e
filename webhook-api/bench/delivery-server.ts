// The webhook API the delivery benchmark loads, in a process of its own, composed as src/main.ts
// composes it (ingest, delivery metrics, the deliverer in the API's process) on SQLite and on
// PostgreSQL, plus the same app whose queue accepts points without touching the store (the ingest
// baseline). The deliverer runs only between startDeliverer and stopDeliverer, so points can be
// queued first and then delivered against the clock; its queue calls and requests are timed. It may
// also run on a queue that writes nothing (delivery-memory-queue.ts): the bound of any queue design.
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { EventLoopUtilization } from 'node:perf_hooks';
import { createLogger } from '@platform/tool-sdk';
import { listenOnFreePort } from '@platform/tool-sdk/testing';
import { personToken, startPlatform } from '@platform/dev-platform/testing';
import { createApp } from '../src/http/app.ts';
import { answerClientErrors } from '../src/http/client-errors.ts';
import { CredentialVault } from '../src/configs/credential-vault.ts';
import { createDeliverySender, startDeliveryService, type DeliveryService } from '../src/delivery/delivery-service.ts';
import { createDeliveryMetrics } from '../src/delivery/metrics.ts';
import { loadDelivererSettings } from '../src/settings.ts';
import { apiClient, platformLookups, testIngestToken } from '../test/harness.ts';
import { settlement } from '../test/settlements.ts';
import { freshDatabase } from '@platform/devtools/postgres-cluster';
import { serveCalls } from './delivery-ipc.ts';
import { spreadEndpoints } from './delivery-load.ts';
import { startProfile, timedQueue, timeRequests, type ProfileSummary, type Spans } from './delivery-spans.ts';
import { openPostgresDatabase, openSqliteDatabase, type WebhookDatabase } from '../src/database.ts';
import { memoryQueue, type MemoryQueue } from './delivery-memory-queue.ts';

/** 'SQLite, queue thread': SQLite with the deliverer's statements in the queue's worker thread (openSqliteDatabase's queueThread). */
export type Backend = 'SQLite' | 'PostgreSQL' | 'SQLite, queue thread';

/**
 * Devices of company 1 in the dev platform's seed: one feeds the Realtime configuration, the other
 * the Batch one. The configurations with ordering PerDevice or a rate limit are fed by devices of
 * their own, linked through the store (the seed has no more devices of the company): 16 for the
 * ordered Realtime one (a device is a stream, sent one at a time), one for each other.
 */
const devices = {
  realtime: 1001,
  batch: 1002,
  realtimeOrdered: Array.from({ length: 16 }, (_, i) => 7001 + i),
  batchOrdered: 7101,
  realtimeLimited: 7201,
  /** Linked to the four Realtime configurations of the scale-out runs: each of its points is a delivery to each. */
  realtimeSpread: 7401,
  batchLimited: 7301,
};

/** The rate limits of the rate-limited configurations, requests a second. */
const limits = { realtime: 1_000, batch: 50 };

/** The production defaults of src/settings.ts, loopback targets allowed (the receiver is on 127.0.0.1). */
const deliverySettings = loadDelivererSettings({ WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true', WEBHOOK_METRICS_PUBLIC: 'true' }).delivery;

const receiverUrl = process.env.BENCH_RECEIVER_URL ?? '';
const postgresUrl = process.env.BENCH_POSTGRES_URL ?? '';
const logger = createLogger({ name: 'webhook-api', level: 'warn' });
/** The encryption key, shared with the second deliverer's process (delivery-second-deliverer.ts). */
const encryptionKey = { id: 'bench-1', key: randomBytes(32) };
const vault = new CredentialVault([encryptionKey]);
/** The PostgreSQL database the API serves, for the second deliverer. */
let postgresDatabase = '';
const platform = await startPlatform();
const ingest = { token: testIngestToken, maxPoints: 1000, maxBodyBytes: 1_048_576 };
const testSender = createDeliverySender(vault, deliverySettings);

/** The API on `store` as src/main.ts builds it; its URL. */
async function serveApi(store: WebhookDatabase, onIngested?: (points: number, queued: number) => void): Promise<string> {
  const listening = await listenOnFreePort();
  const app = createApp({
    sender: testSender,
    store,
    queue: store.deliveries,
    vault,
    ...platformLookups(platform.issuer),
    logger,
    publicUrl: listening.url,
    ingest: { ...ingest, ...(onIngested && { onIngested }) },
  });
  listening.server.on('request', app);
  answerClientErrors(listening.server);
  return listening.url;
}

/** A Realtime and a Batch configuration of company 1 sending to the receiver, each with its device linked at Device scope. */
async function configure(url: string, store: WebhookDatabase): Promise<void> {
  const oscar = apiClient(url, `Bearer ${await personToken(platform.issuer, 'oscar')}`);
  for (const [mode, device] of [
    ['Realtime', devices.realtime],
    ['Batch', devices.batch],
  ] as const) {
    const created = await oscar('POST', '/v2/webhooks?companyId=1', { name: mode, url: `${receiverUrl}/${mode.toLowerCase()}`, deliveryMode: mode });
    const { id } = created.body as { id: string };
    const linked = await oscar('POST', `/v2/webhooks/${id}/devices/${device}`);
    const scoped = await oscar('POST', `/v2/webhooks/${id}/devices/${device}/routes`, { enabled: true, scopeLevel: 'Device' });
    if (created.status !== 201 || linked.status !== 201 || scoped.status !== 201) {
      throw new Error(`configuring the ${mode} webhook failed: ${created.status}, ${linked.status}, ${scoped.status}`);
    }
  }
  const options = [
    ['realtime-ordered', 'Realtime', { ordering: 'PerDevice' }, devices.realtimeOrdered],
    ['batch-ordered', 'Batch', { ordering: 'PerDevice' }, [devices.batchOrdered]],
    ['realtime-limited', 'Realtime', { rateLimitPerSecond: limits.realtime }, [devices.realtimeLimited]],
    ...Array.from({ length: spreadEndpoints }, (_, i) => [`realtime-spread-${i}`, 'Realtime', {}, [devices.realtimeSpread]] as const),
    ['batch-limited', 'Batch', { rateLimitPerSecond: limits.batch }, [devices.batchLimited]],
  ] as const;
  for (const [name, mode, fields, linked] of options) {
    const created = await oscar('POST', '/v2/webhooks?companyId=1', { name, url: `${receiverUrl}/${name}`, deliveryMode: mode, ...fields });
    if (created.status !== 201) throw new Error(`configuring the ${name} webhook failed: ${created.status}`);
    const { id } = created.body as { id: string };
    for (const device of linked) {
      await store.linkDevice({ webhookConfigId: id, deviceId: device, createdAt: new Date().toISOString() });
      await store.createScope(id, device, { id: randomUUID(), scopeLevel: 'Device', connectionTag: null, measurement: null, enabled: true });
    }
  }
}

interface Running {
  readonly service: DeliveryService;
  readonly spans: Spans;
  readonly stopTiming: () => void;
  readonly elu: EventLoopUtilization;
  readonly cpu: NodeJS.CpuUsage;
  readonly stopProfile: (() => Promise<ProfileSummary>) | undefined;
}

interface Served {
  readonly url: string;
  readonly store: WebhookDatabase;
  readonly metrics: ReturnType<typeof createDeliveryMetrics>;
  running?: Running;
}

const served = new Map<Backend, Served>();
for (const backend of ['SQLite', 'PostgreSQL', 'SQLite, queue thread'] as const) {
  const batch = { maxPoints: deliverySettings.batchMaxPoints, lingerMs: deliverySettings.batchLingerMs };
  const store =
    backend === 'PostgreSQL'
      ? await openPostgresDatabase((postgresDatabase = await freshDatabase(postgresUrl)), { batch })
      : await openSqliteDatabase(join(mkdtempSync(join(tmpdir(), 'webhook-bench-')), 'webhooks.db'), {
          batch,
          queueThread: backend === 'SQLite, queue thread',
        });
  const metrics = createDeliveryMetrics({ queue: store.deliveries });
  const url = await serveApi(store, (points, queued) => {
    metrics.ingested(points, queued);
  });
  await configure(url, store);
  served.set(backend, { url, store, metrics });
}
// The ingest baseline: the same app, token check, body parsing and validation, but a queue whose ingest writes nothing.
const sqliteStore = served.get('SQLite')?.store;
if (!sqliteStore) throw new Error('no SQLite store');
const bareQueue = { ...sqliteStore.deliveries, ingest: (points: readonly unknown[]) => Promise.resolve({ queued: points.length }) };
const bare = await serveApi({ ...sqliteStore, deliveries: bareQueue });

function servedOn(backend: Backend): Served {
  const found = served.get(backend);
  if (!found) throw new Error(`no API on ${backend}`);
  return found;
}

export interface DelivererReport {
  readonly spans: Spans;
  /** The event loop's utilization while the deliverer ran (1: always busy). */
  readonly eventLoopUtilization: number;
  /** CPU microseconds this process used (every thread: the loop, the queue's worker) while the deliverer ran. */
  readonly cpuMicros: number;
  readonly profile: ProfileSummary | undefined;
}

/** The queue that writes nothing (delivery-memory-queue.ts), made by fillMemoryQueue on the SQLite store's queue. */
let inMemory: MemoryQueue | undefined;

export const serverCalls = {
  /**
   * Makes the queue that writes nothing hold `count` copies of the Realtime point the SQLite store's
   * log holds (one, just ingested): claimed and settled there, so that store is left as it was.
   */
  async fillMemoryQueue({ count }: { count: number }) {
    const queue = servedOn('SQLite').store.deliveries;
    const owner = `bench-memory-queue-${randomUUID()}`;
    const now = Date.now();
    const logRoom = { limit: 1, perConfig: 1, inFlight: new Map<string, number>(), perCompany: 1, inFlightByCompany: new Map<number, number>() };
    const [point] = await queue.claim({ owner, now, leaseMs: 60_000, limit: 0, perConfig: 1, inFlight: new Map(), logRoom });
    // The harness checks that nothing else was left waiting in the store.
    if (point?.logged !== true || point.config.name !== 'Realtime')
      throw new Error('the memory queue is filled from a point of the Realtime configuration’s log');
    const settled = await queue.settle(owner, [settlement(point.id)], now);
    if (!settled.has(point.id)) throw new Error('the memory queue’s point could not be settled in the SQLite store');
    await queue.release(owner);
    inMemory = memoryQueue(queue, point);
    inMemory.fill(count);
  },
  /**
   * Starts a deliverer on `backend` with `deliverySettings`, its queue calls and requests timed,
   * optionally profiled; with `noQueue`, on the queue fillMemoryQueue filled (its API's store is SQLite's).
   */
  async startDeliverer({
    backend,
    profile,
    unsigned = false,
    maxInFlight,
    noQueue = false,
  }: {
    backend: Backend;
    profile: boolean;
    unsigned?: boolean;
    maxInFlight?: number;
    noQueue?: boolean;
  }) {
    const api = servedOn(backend);
    if (api.running) throw new Error(`a deliverer already runs on ${backend}`);
    if (noQueue && (!inMemory || backend !== 'SQLite')) throw new Error('a deliverer on no queue runs on SQLite’s API once fillMemoryQueue filled it');
    const spans: Spans = {};
    // Requests are timed (through undici's diagnostics channels, a cost on every request the raw
    // baseline does not pay) only in the profiled runs, which are not measured.
    const stopTiming = profile ? timeRequests(spans) : () => undefined;
    const stopProfile = profile ? await startProfile() : undefined;
    const elu = performance.eventLoopUtilization();
    const cpu = process.cpuUsage();
    const service = await startDeliveryService({
      queue: timedQueue(noQueue && inMemory ? inMemory.queue : api.store.deliveries, spans),
      vault,
      settings: { ...deliverySettings, maxInFlight: maxInFlight ?? deliverySettings.maxInFlight },
      logger,
      metrics: api.metrics,
      signDeliveries: !unsigned,
    });
    api.running = { service, spans, stopTiming, elu, cpu, stopProfile };
  },
  /** Stops it: what it spent its time on. */
  async stopDeliverer({ backend }: { backend: Backend }): Promise<DelivererReport> {
    const api = servedOn(backend);
    const running = api.running;
    if (!running) throw new Error(`no deliverer runs on ${backend}`);
    const eventLoopUtilization = performance.eventLoopUtilization(running.elu).utilization;
    const used = process.cpuUsage(running.cpu);
    const profile = await running.stopProfile?.();
    await running.service.stop(5_000);
    running.stopTiming();
    delete api.running;
    return { spans: running.spans, eventLoopUtilization, cpuMicros: used.user + used.system, profile };
  },
  /** Deliveries still queued, and Batch points in batches still open. */
  async queueStats({ backend }: { backend: Backend }) {
    const stats = await servedOn(backend).store.deliveries.stats();
    return { queued: stats.queued, gathering: stats.gathering };
  },
};

export interface ServerReady {
  readonly urls: Readonly<Record<Backend | 'bare', string>>;
  readonly devices: typeof devices;
  readonly limits: typeof limits;
  readonly settings: typeof deliverySettings;
  /** What a second deliverer on the PostgreSQL store opens it with. */
  readonly secondDeliverer: { readonly database: string; readonly keyId: string; readonly key: string };
}

serveCalls(serverCalls, {
  urls: { SQLite: servedOn('SQLite').url, PostgreSQL: servedOn('PostgreSQL').url, 'SQLite, queue thread': servedOn('SQLite, queue thread').url, bare },
  devices,
  limits,
  settings: deliverySettings,
  secondDeliverer: { database: postgresDatabase, keyId: encryptionKey.id, key: encryptionKey.key.toString('base64') },
} satisfies ServerReady);
