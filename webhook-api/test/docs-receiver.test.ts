// The receiver of docs/webhooks.md, taken from the page as written and run as its own process: it
// verifies real signed deliveries with the `standardwebhooks` library and tells the devices of one
// gateway apart in a Batch request by each point's DeviceId and ConnectionTag; on SQLite and PostgreSQL.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join, resolve } from 'node:path';
import { startPlatform } from '@platform/dev-platform/testing';
import { killedIfTestFails } from '@platform/devtools/test-processes';
import { startedForTests } from '@platform/tool-sdk/testing';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { newStoreLocation, startWebhookApi, telemetryPoint, type ApiClient, type Backend, type RunningApi } from './harness.ts';

const root = resolve(import.meta.dirname, '../..');
const platform = startedForTests(() => startPlatform());
/** Two devices of company 1 in the dev platform's seed, behind one gateway here. */
const boiler = 1001;
const roof = 1002;

/** The page's receiver: the one js block that verifies with standardwebhooks. */
function docsReceiver(): string {
  const page = readFileSync(resolve(root, 'docs/webhooks.md'), 'utf8');
  const blocks = [...page.matchAll(/```js\n([\s\S]*?)```/g)].map((match) => match[1] ?? '');
  const receiver = blocks.filter((block) => block.includes("from 'standardwebhooks'"));
  expect(receiver).toHaveLength(1);
  return receiver[0] ?? '';
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as { port: number };
  await new Promise((done) => server.close(done));
  return port;
}

describe.each<Backend>(['SQLite', 'PostgreSQL'])('the receiver of docs/webhooks.md, on %s', (backend) => {
  let api: RunningApi;
  let oscar: ApiClient;
  let child: ChildProcess | undefined;
  // Under the repository's node_modules, so the page's imports resolve as they would in a customer's project.
  const folder = mkdtempSync(join(root, 'node_modules', '.cache-docs-receiver-'));

  beforeAll(async () => {
    api = await startWebhookApi({
      location: await newStoreLocation(backend, inject('postgresUrl')),
      platformUrl: platform().issuer,
      deliverer: { batchLingerMs: 200 },
    });
    oscar = await api.clientAs('oscar');
  });
  afterAll(async () => {
    child?.kill('SIGKILL');
    await api.close();
    rmSync(folder, { recursive: true, force: true });
  });

  it('verifies a Batch request and tells its two devices apart by DeviceId and ConnectionTag', async () => {
    const created = await oscar('POST', '/v2/webhooks?companyId=1', { name: 'docs receiver', url: 'http://127.0.0.1:1/unset', deliveryMode: 'Batch' });
    expect(created.status).toBe(201);
    const { id } = created.body as { id: string };
    const { secret } = (await oscar('GET', `/v2/webhooks/${id}/signing-secret`)).body as { secret: string };
    const port = await freePort();
    const script = join(folder, 'receiver.mjs');
    writeFileSync(script, docsReceiver());
    child = killedIfTestFails(
      spawn(process.execPath, [script], {
        env: { PATH: process.env.PATH, WEBHOOK_SECRET: secret, PORT: String(port) },
        stdio: ['ignore', 'pipe', 'pipe'],
      }),
    );
    const lines: string[] = [];
    let output = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
      const parts = output.split('\n');
      output = parts.pop() ?? '';
      lines.push(...parts.filter((line) => line.trim() !== ''));
    });
    let errors = '';
    child.stderr?.on('data', (chunk: Buffer) => (errors += chunk.toString('utf8')));
    // Listening: a GET is answered (404 by express) once it is.
    await expect
      .poll(
        async () =>
          (await fetch(`http://127.0.0.1:${port}/`).then(
            (r) => r.status,
            () => 0,
          )) || errors,
        { timeout: 10_000 },
      )
      .toBe(404);

    const put = await oscar('PUT', `/v2/webhooks/${id}`, { name: 'docs receiver', url: `http://127.0.0.1:${port}/telemetry`, deliveryMode: 'Batch' });
    expect(put.status).toBe(200);
    for (const device of [boiler, roof]) {
      expect((await oscar('POST', `/v2/webhooks/${id}/devices/${device}`)).status).toBe(201);
      expect((await oscar('POST', `/v2/webhooks/${id}/devices/${device}/routes`, { scopeLevel: 'Device', enabled: true })).status).toBe(201);
    }
    // One gateway, one measurement: one batch, as in the issue (30 from the boiler, 31 from the roof).
    const answer = await api.ingest([
      telemetryPoint(boiler, { gatewayId: 'gw-acme-01', connectionTag: 'modbus', fields: { value: 30 }, tags: {} }),
      telemetryPoint(roof, { gatewayId: 'gw-acme-01', connectionTag: 'lorawan', fields: { value: 31 }, tags: {} }),
    ]);
    expect(answer).toEqual({ status: 202, body: { accepted: 2, queued: 2 } });

    await expect.poll(() => lines.length, { timeout: 10_000 }).toBe(2);
    expect(lines.map((line) => JSON.parse(line) as unknown)).toEqual([
      { device: boiler, connection: 'modbus', measurement: 'temperature', fields: { value: 30 } },
      { device: roof, connection: 'lorawan', measurement: 'temperature', fields: { value: 31 } },
    ]);
    // One request carried both (the receiver answered it 204, so it was delivered once). The attempt
    // is written once the deliverer has the answer, after the receiver printed the lines: polled.
    await expect
      .poll(async () => (await oscar('GET', `/v2/webhooks/${id}/deliveries`)).body as { outcome: string; pointCount: number }[], { timeout: 10_000 })
      .toEqual([expect.objectContaining({ outcome: 'delivered', pointCount: 2 })]);

    // A full batch larger than express's default body limit (100 kB): the page's receiver has room for it.
    const fields = Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`sensor_${String(i).padStart(3, '0')}`, 1000 + i + 0.25]));
    const full = Array.from({ length: 100 }, () => telemetryPoint(boiler, { gatewayId: 'gw-acme-01', connectionTag: 'modbus', fields, tags: {} }));
    expect(JSON.stringify(full).length).toBeGreaterThan(150_000);
    expect(await api.ingest(full)).toEqual({ status: 202, body: { accepted: 100, queued: 100 } });
    await expect.poll(() => lines.length, { timeout: 10_000 }).toBe(102);
    await expect
      .poll(
        async () => ((await oscar('GET', `/v2/webhooks/${id}/deliveries`)).body as { outcome: string; pointCount: number }[]).map((line) => line.pointCount),
        {
          timeout: 10_000,
        },
      )
      .toEqual(expect.arrayContaining([100, 2]));
    const log = (await oscar('GET', `/v2/webhooks/${id}/deliveries`)).body as { outcome: string }[];
    expect(log.map((line) => line.outcome)).toEqual(['delivered', 'delivered']);
    expect(errors).toBe('');
  });
});
