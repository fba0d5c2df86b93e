// A device simulator: telemetry points as a gateway would send them, posted to the webhook API's
// ingest (POST /internal/telemetry with the ingest token).

export interface TelemetryPoint {
  readonly deviceId: number;
  readonly gatewayId: string;
  readonly connectionTag: string;
  readonly measurement: string;
  readonly fields: Readonly<Record<string, number>>;
  readonly tags: Readonly<Record<string, string>>;
  readonly utcTimestamp: string;
}

export interface SimulatedDevice {
  readonly deviceId: number;
  readonly gatewayId: string;
  readonly connectionTag: string;
}

export interface IngestAnswer {
  readonly accepted: number;
  readonly queued: number;
}

/** `count` readings of `measurement` from `device`, one second apart, ending now, with plausible values. */
export function readings(device: SimulatedDevice, measurement: string, count: number, now = Date.now()): TelemetryPoint[] {
  return Array.from({ length: count }, (_, i) => {
    const at = now - (count - 1 - i) * 1000;
    const wave = Math.sin(at / 60_000);
    const fields: Record<string, number> =
      measurement === 'temperature' ? { celsius: Math.round((21 + 2 * wave) * 10) / 10 } : { percent: Math.round(45 + 10 * wave) };
    return {
      ...device,
      measurement,
      fields,
      tags: { unit: measurement === 'temperature' ? 'C' : '%', site: 'demo' },
      utcTimestamp: new Date(at).toISOString(),
    };
  });
}

/** Posts points to the ingest; what it accepted and how many deliveries that queued. */
export async function sendTelemetry(webhookApiUrl: string, ingestToken: string, points: readonly TelemetryPoint[]): Promise<IngestAnswer> {
  const response = await fetch(`${webhookApiUrl}/internal/telemetry`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${ingestToken}` },
    body: JSON.stringify({ points }),
    signal: AbortSignal.timeout(10_000),
  });
  const body = (await response.json().catch(() => ({}))) as { accepted?: unknown; queued?: unknown; message?: unknown };
  if (response.status !== 202 || typeof body.accepted !== 'number' || typeof body.queued !== 'number') {
    throw new Error(`the ingest answered ${response.status}: ${typeof body.message === 'string' ? body.message : 'not the 202 it gives for accepted points'}`);
  }
  return { accepted: body.accepted, queued: body.queued };
}
