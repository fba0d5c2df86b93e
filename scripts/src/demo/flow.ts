// The scripted demo against a running stack, one progress line per step: a person signs in, an MCP
// client creates a webhook through the tools, a simulated device sends telemetry, the receiver
// shows what arrived, a disabled scope stops the flow, the attempt log shows the deliveries, and
// the delegation boundary refuses what the app was never consented to, owners included. Every step
// checks what it shows; the first that does not see it ends the demo (after cleaning up).
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Client } from '@modelcontextprotocol/client';
import { describeDelivery, maskedHeaderValue, startDemoReceiver, type DemoReceiver } from './receiver.ts';
import { attemptLog, DemoStepFailed, signingSecret, verifiesWith } from './webhook-api.ts';
import { readings, sendTelemetry, type SimulatedDevice } from './device-simulator.ts';
import { closeGatewaySession, connectToGateway, personToken } from '../stack/platform-session.ts';
import type { StackAddresses } from '../stack/processes.ts';

export interface DemoOptions {
  readonly addresses: StackAddresses;
  readonly ingestToken: string;
  /** Aborted (Ctrl-C): the step under way ends, and what the demo made is cleaned up. */
  readonly signal?: AbortSignal;
  /** Where progress goes, a line at a time. */
  readonly print: (line: string) => void;
}

// The seeded world the demo walks through (dev-platform/seed.json).
const operator = 'oscar'; // device operator at Acme Telemetry (1) and Acme Field Services (2)
const owner = 'bjorn'; // owner of Borealis Sensors (3), where the webhook tools app is not installed
const acme = 1;
const fieldServices = 2; // the app is installed there with device-overview:view only
const borealis = 3;
const device: SimulatedDevice = { deviceId: 1001, gatewayId: 'gw-acme-01', connectionTag: 'sensor-bus' };

const stepTitles = [
  `${operator} signs in at the dev platform`,
  'an MCP client connects to the gateway and lists the tools',
  'create_webhook: a Realtime webhook to the demo receiver, with a Bearer credential',
  `link_device: device ${device.deviceId} to the webhook`,
  'add_scope: the temperature measurement of its sensor-bus connection',
  'the device sends temperature and humidity readings; the receiver verifies each signature',
  'disable_scope: delivery stops',
  'the attempt log (GET /v2/webhooks/{id}/deliveries) shows the deliveries',
  'a right the app was never consented to is refused',
  'an owner gets no bypass through the app',
] as const;

interface ToolAnswer {
  readonly isError: boolean;
  readonly text: string;
  readonly structured: Record<string, unknown> | undefined;
}

async function callTool(client: Client, name: string, args: Record<string, unknown>): Promise<ToolAnswer> {
  const result = await client.callTool({ name, arguments: args });
  const text = (result.content as { type: string; text?: string }[]).flatMap((c) => (c.type === 'text' && c.text ? [c.text] : [])).join(' ');
  return { isError: result.isError === true, text, structured: result.structuredContent as Record<string, unknown> | undefined };
}

/** The tool's structured answer; a failed step when the tool refused. */
async function useTool(client: Client, name: string, args: Record<string, unknown>): Promise<Record<string, unknown>> {
  const answer = await callTool(client, name, args);
  if (answer.isError || !answer.structured) throw new DemoStepFailed(`${name} failed: ${answer.text}`);
  return answer.structured;
}

/** Runs every step; resolves when all were seen, rejects with the first that was not. Cleans up either way. */
export async function runDemo(options: DemoOptions): Promise<void> {
  const { addresses: at, ingestToken, print, signal } = options;
  const interrupted = new Promise<never>((_, reject) => {
    const stop = () => {
      reject(new DemoStepFailed('interrupted; cleaning up'));
    };
    if (signal?.aborted) stop();
    signal?.addEventListener('abort', stop);
  });
  interrupted.catch(() => undefined); // it is raced against each step, and may never be
  const clients: Client[] = [];
  let receiver: DemoReceiver | undefined;
  let operatorClient: Client | undefined;
  let webhookId: string | undefined;
  let stepNumber = 0;

  const step = async (title: (typeof stepTitles)[number], run: () => Promise<string>) => {
    stepNumber += 1;
    print(`[${stepNumber}/${stepTitles.length}] ${title}`);
    const seen = await Promise.race([run(), interrupted]);
    for (const line of seen.split('\n')) print(`      ${line}`);
  };
  /** What the attempt log says of this demo's webhook, for a step that saw nothing arrive. */
  const whyNotDelivered = async () => {
    try {
      const { accessToken } = await personToken(at.platformUrl, operator);
      const [last] = await attemptLog(at.webhookApiUrls[0] ?? '', accessToken, webhookId ?? '');
      if (!last) return '; the attempt log has no attempt yet';
      const hint = last.error?.includes('WEBHOOK_ALLOW_PRIVATE_TARGETS') ? ' (npm start allows them, unless NODE_ENV=production)' : '';
      return `; the attempt log says: ${last.outcome}${last.error ? `, ${last.error}` : ''}${hint}`;
    } catch {
      return '';
    }
  };
  const connect = async (username: string) => {
    const { accessToken } = await personToken(at.platformUrl, username, at.mcpUrl);
    const client = await connectToGateway(at.mcpUrl, accessToken, 'telemetry-demo');
    clients.push(client);
    return client;
  };

  try {
    // A path of this run's own: other configurations of the device (another demo's, say) are not this demo's deliveries.
    receiver = await startDemoReceiver({
      host: new URL(at.receiverUrl).hostname.replace(/^\[(.*)\]$/, '$1'),
      port: Number(new URL(at.receiverUrl).port),
      path: `/telemetry/${randomBytes(4).toString('hex')}`,
    });
    const endpoint = receiver.url;
    // A credential of the demo's own, made now: the receiver checks it arrived, and nobody prints it.
    const credential = randomBytes(18).toString('base64url');

    let gatewayToken = '';
    await step(stepTitles[0], async () => {
      const token = await personToken(at.platformUrl, operator, at.mcpUrl);
      gatewayToken = token.accessToken;
      return `a token for ${at.mcpUrl}, valid ${token.expiresIn} s (POST ${at.platformUrl}/dev/token; an MCP client would use OAuth)`;
    });

    await step(stepTitles[1], async () => {
      // The demo is the person too: it says yes to what a tool asks (delete_webhook's confirmation, at cleanup).
      operatorClient = await connectToGateway(at.mcpUrl, gatewayToken, 'telemetry-demo', (message) => {
        print(`${operator} is asked: "${message}": the demo answers yes`);
        return { action: 'accept', content: {} };
      });
      clients.push(operatorClient);
      const { tools } = await operatorClient.listTools();
      const needed = ['create_webhook', 'link_device', 'add_scope', 'disable_scope', 'delete_webhook'];
      const missing = needed.filter((name) => !tools.some((tool) => tool.name === name));
      if (missing.length > 0) throw new DemoStepFailed(`the gateway lists no ${missing.join(', ')} (is the tool service registered?)`);
      return `${tools.length} tools: ${tools.map((tool) => tool.name).join(', ')}`;
    });
    const client = operatorClient;
    if (!client) throw new DemoStepFailed('no MCP client');

    await step(stepTitles[2], async () => {
      const { webhook } = (await useTool(client, 'create_webhook', {
        companyId: acme,
        name: `Demo ${new Date().toISOString()}`,
        url: endpoint,
        deliveryMode: 'Realtime',
        authType: 'Bearer',
        authPayload: { token: credential },
        customHeaders: { 'X-Demo-Run': 'npm run demo' },
      })) as { webhook: { id: string } };
      webhookId = webhook.id;
      return `webhook ${webhook.id} at Acme Telemetry (${acme}) -> ${endpoint}`;
    });
    const id = webhookId ?? '';

    await step(stepTitles[3], async () => {
      await useTool(client, 'link_device', { webhookConfigId: id, deviceId: device.deviceId });
      return 'linked; a link alone forwards nothing until it has a scope';
    });

    let scopeId = '';
    await step(stepTitles[4], async () => {
      const { scope } = (await useTool(client, 'add_scope', {
        webhookConfigId: id,
        deviceId: device.deviceId,
        scopeLevel: 'Measurement',
        connectionTag: device.connectionTag,
        measurement: 'temperature',
      })) as { scope: { id: string } };
      scopeId = scope.id;
      return `scope ${scope.id}: Measurement ${device.connectionTag}/temperature, enabled`;
    });

    await step(stepTitles[5], async () => {
      const points = [...readings(device, 'temperature', 3), ...readings(device, 'humidity', 3)];
      const answer = await sendTelemetry(at.webhookApiUrls[0] ?? '', ingestToken, points);
      if (answer.queued < 3) throw new DemoStepFailed(`the ingest queued ${answer.queued} deliveries, fewer than the 3 temperature readings`);
      if (!(await receiver?.waitFor(3, 10_000))) {
        throw new DemoStepFailed(`the receiver got ${receiver?.received.length ?? 0} of 3 deliveries in 10 s${await whyNotDelivered()}`);
      }
      await sleep(500); // anything more (a humidity reading) would arrive now
      const got = receiver?.received ?? [];
      if (got.length !== 3) throw new DemoStepFailed(`the receiver got ${got.length} deliveries, not 3`);
      const [first] = got;
      if (!first) throw new DemoStepFailed('no delivery');
      const authorization = first.headers.authorization ?? '';
      if (authorization !== `Bearer ${credential}`)
        throw new DemoStepFailed(
          `the delivery came with Authorization ${maskedHeaderValue('authorization', authorization)}, not the webhook's Bearer credential`,
        );
      const measurements = got.map((d) => (d.body as { Point?: { Measurement?: string } }).Point?.Measurement);
      if (measurements.some((m) => m !== 'temperature')) throw new DemoStepFailed(`the receiver got ${measurements.join(', ')}`);
      // As a receiver does: the webhook's signing secret (a manager reads it over REST) verifies each delivery.
      const { accessToken } = await personToken(at.platformUrl, operator);
      const secret = await signingSecret(at.webhookApiUrls[0] ?? '', accessToken, id);
      const unverified = got.filter((delivery) => !verifiesWith(secret, delivery));
      if (unverified.length > 0) throw new DemoStepFailed(`${unverified.length} of ${got.length} deliveries did not verify with the webhook's signing secret`);
      return [
        `ingest accepted ${answer.accepted} points and queued ${answer.queued} deliveries: the temperatures${answer.queued > 3 ? ' (and some for other configurations of the device)' : ''}; the humidity readings match no scope`,
        `the receiver got ${got.length} deliveries, one per point, each signed (webhook-id, webhook-timestamp, webhook-signature) and verified with the webhook's signing secret by the standardwebhooks library;`,
        'the first (the Bearer credential arrived, masked here):',
        describeDelivery(first),
      ].join('\n');
    });

    await step(stepTitles[6], async () => {
      await useTool(client, 'disable_scope', { webhookConfigId: id, deviceId: device.deviceId, scopeId });
      const before = receiver?.received.length ?? 0;
      const answer = await sendTelemetry(at.webhookApiUrls[0] ?? '', ingestToken, readings(device, 'temperature', 3));
      await sleep(2_000);
      const after = receiver?.received.length ?? 0;
      if (answer.queued !== 0 || after !== before)
        throw new DemoStepFailed(`${answer.queued} deliveries were queued and ${after - before} arrived after the scope was disabled`);
      return `ingest accepted ${answer.accepted} more readings and queued none; the receiver got nothing in 2 s`;
    });

    await step(stepTitles[7], async () => {
      const { accessToken } = await personToken(at.platformUrl, operator); // a token for the REST API, not the gateway
      let attempts = await attemptLog(at.webhookApiUrls[0] ?? '', accessToken, id);
      for (let waited = 0; attempts.filter((a) => a.outcome === 'delivered').length < 3 && waited < 5_000; waited += 250) {
        await sleep(250);
        attempts = await attemptLog(at.webhookApiUrls[0] ?? '', accessToken, id);
      }
      const delivered = attempts.filter((a) => a.outcome === 'delivered' && a.responseStatus === 200).length;
      if (delivered !== 3) throw new DemoStepFailed(`the attempt log shows ${delivered} delivered attempts, not 3`);
      return `${attempts.length} attempts, ${delivered} delivered with HTTP 200 (as ${operator}, with a token for the REST API)`;
    });

    await step(stepTitles[8], async () => {
      const answer = await callTool(client, 'create_webhook', { companyId: fieldServices, name: 'Not allowed', url: endpoint, deliveryMode: 'Realtime' });
      if (!answer.isError) throw new DemoStepFailed('create_webhook at Acme Field Services succeeded');
      return [
        `${operator} may manage webhooks at Acme Field Services (${fieldServices}) himself, but the app was consented device-overview:view only there:`,
        `create_webhook answered: ${answer.text}`,
      ].join('\n');
    });

    await step(stepTitles[9], async () => {
      const { accessToken } = await personToken(at.platformUrl, owner);
      const own = await fetch(`${at.webhookApiUrls[0] ?? ''}/v2/webhooks?companyId=${borealis}`, {
        headers: { authorization: `Bearer ${accessToken}`, authversion: 'V0.0.1' },
      });
      await own.body?.cancel();
      if (own.status !== 200) throw new DemoStepFailed(`${owner}'s own token was answered ${own.status} at the REST API`);
      const ownerClient = await connect(owner);
      const answer = await callTool(ownerClient, 'list_webhooks', { companyId: borealis });
      if (!answer.isError) throw new DemoStepFailed(`list_webhooks at Borealis Sensors succeeded for ${owner} through the app`);
      return [
        `${owner} owns Borealis Sensors (${borealis}): with his own token the REST API lists its webhooks (HTTP 200);`,
        `through the tools, which run on a token delegated to the app (not installed there), list_webhooks answered: ${answer.text}`,
      ].join('\n');
    });
  } finally {
    if (webhookId && operatorClient) {
      const deleted = await callTool(operatorClient, 'delete_webhook', { webhookConfigId: webhookId }).catch((error: unknown) => ({
        isError: true,
        text: String(error),
      }));
      print(
        deleted.isError ? `cleanup: webhook ${webhookId} was not deleted: ${deleted.text}` : `cleanup: webhook ${webhookId} deleted with its link and scope`,
      );
    }
    await Promise.all(clients.map((c) => closeGatewaySession(c).catch(() => undefined)));
    await receiver?.close();
  }
}
