// One delivery through the stack with a deliverer stopped: a webhook made through the gateway's
// tools (as the demo makes one), a reading sent to the ingest, and the receiver on this machine
// seeing it arrive; the webhook is deleted again either way.
import { randomBytes } from 'node:crypto';
import type { Client } from '@modelcontextprotocol/client';
import { startDemoReceiver } from '../demo/receiver.ts';
import { readings, sendTelemetry } from '../demo/device-simulator.ts';
import { closeGatewaySession, connectToGateway, personToken } from '../stack/platform-session.ts';

export interface FailoverTarget {
  readonly platformUrl: string;
  readonly mcpUrl: string;
  readonly webhookApiUrl: string;
  readonly ingestToken: string;
  /** Where the receiver listens: an address of this machine the containers reach. */
  readonly receiverHost: string;
  readonly receiverPort: number;
  readonly timeoutMs: number;
}

// The demo's seeded world: oscar operates Acme Telemetry (1), whose device 1001 reports on sensor-bus.
const company = 1;
const device = { deviceId: 1001, gatewayId: 'gw-acme-01', connectionTag: 'sensor-bus' };

async function tool(client: Client, name: string, args: Record<string, unknown>): Promise<Record<string, unknown>> {
  const result = await client.callTool({ name, arguments: args });
  if (result.isError === true || !result.structuredContent) {
    const text = (result.content as { type: string; text?: string }[]).map((c) => c.text ?? '').join(' ');
    throw new Error(`${name} failed: ${text}`);
  }
  return result.structuredContent as Record<string, unknown>;
}

/** Resolves with what arrived once the receiver got the reading; rejects saying what did not happen. */
export async function deliverOneReading(target: FailoverTarget): Promise<string> {
  const receiver = await startDemoReceiver({
    host: target.receiverHost,
    port: target.receiverPort,
    path: `/failover/${randomBytes(4).toString('hex')}`,
  });
  let client: Client | undefined;
  let webhookId: string | undefined;
  try {
    const { accessToken } = await personToken(target.platformUrl, 'oscar', target.mcpUrl);
    client = await connectToGateway(target.mcpUrl, accessToken, 'compose-test');
    const { webhook } = (await tool(client, 'create_webhook', {
      companyId: company,
      name: `Compose test ${new Date().toISOString()}`,
      url: receiver.url,
      deliveryMode: 'Realtime',
      authType: 'Bearer',
      authPayload: { token: randomBytes(18).toString('base64url') },
    })) as { webhook: { id: string } };
    webhookId = webhook.id;
    await tool(client, 'link_device', { webhookConfigId: webhookId, deviceId: device.deviceId });
    await tool(client, 'add_scope', {
      webhookConfigId: webhookId,
      deviceId: device.deviceId,
      scopeLevel: 'Measurement',
      connectionTag: device.connectionTag,
      measurement: 'temperature',
    });
    const answer = await sendTelemetry(target.webhookApiUrl, target.ingestToken, readings(device, 'temperature', 1));
    if (answer.queued < 1) throw new Error(`the ingest queued ${answer.queued} deliveries for a scoped reading`);
    if (!(await receiver.waitFor(1, target.timeoutMs))) throw new Error(`nothing arrived at ${receiver.url} within ${target.timeoutMs / 1000} s`);
    return `the reading arrived at ${receiver.url}`;
  } finally {
    if (client && webhookId) await tool(client, 'delete_webhook', { webhookConfigId: webhookId }).catch(() => undefined);
    await closeGatewaySession(client).catch(() => undefined);
    await receiver.close();
  }
}
