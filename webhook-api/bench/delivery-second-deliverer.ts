// A second deliverer on the delivery benchmark's PostgreSQL database, in a process of its own, with
// the API process's encryption key: what a second deliverer adds to the first (the bench starts both
// on the same queue). Started and stopped by the bench, its CPU time reported.
import { createLogger } from '@platform/tool-sdk';
import { CredentialVault } from '../src/configs/credential-vault.ts';
import { startDeliveryService, type DeliveryService } from '../src/delivery/delivery-service.ts';
import { openPostgresDatabase } from '../src/database.ts';
import { loadDelivererSettings } from '../src/settings.ts';
import { serveCalls } from './delivery-ipc.ts';

const deliverySettings = loadDelivererSettings({ WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true', WEBHOOK_METRICS_PUBLIC: 'true' }).delivery;
const logger = createLogger({ name: 'webhook-api', level: 'warn' });
const vault = new CredentialVault([{ id: process.env.BENCH_KEY_ID ?? '', key: Buffer.from(process.env.BENCH_KEY ?? '', 'base64') }]);
const store = await openPostgresDatabase(process.env.BENCH_POSTGRES_DATABASE ?? '', {
  batch: { maxPoints: deliverySettings.batchMaxPoints, lingerMs: deliverySettings.batchLingerMs },
});
let running: { service: DeliveryService; cpu: NodeJS.CpuUsage } | undefined;

export const secondDelivererCalls = {
  async start({ maxInFlight }: { maxInFlight?: number } = {}) {
    if (running) throw new Error('the second deliverer already runs');
    const cpu = process.cpuUsage();
    const settings = { ...deliverySettings, maxInFlight: maxInFlight ?? deliverySettings.maxInFlight };
    running = { service: await startDeliveryService({ queue: store.deliveries, vault, settings, logger }), cpu };
  },
  /** Stops it: the CPU microseconds it used while it ran. */
  async stop() {
    if (!running) throw new Error('no second deliverer runs');
    const used = process.cpuUsage(running.cpu);
    await running.service.stop(5_000);
    running = undefined;
    return used.user + used.system;
  },
};

serveCalls(secondDelivererCalls, {});
