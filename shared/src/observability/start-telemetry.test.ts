import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { startTelemetry, type Telemetry } from './start-telemetry.ts';
import { loadTelemetrySettings } from './telemetry-settings.ts';
import { inSpan, isRecording } from './tracing.ts';

/** An OTLP endpoint that counts what it is sent. */
async function collector() {
  const received: { headers: IncomingHttpHeaders; body: string }[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      received.push({ headers: req.headers, body });
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    received,
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

let started: Telemetry | undefined;
afterEach(async () => {
  await started?.shutdown();
  started = undefined;
});

describe('tracing settings', () => {
  it('is off without OTEL variables, and with OTEL_SDK_DISABLED=true or OTEL_TRACES_EXPORTER=none', () => {
    expect(loadTelemetrySettings({}, 'svc').enabled).toBe(false);
    expect(loadTelemetrySettings({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318', OTEL_SDK_DISABLED: 'true' }, 'svc').enabled).toBe(false);
    expect(loadTelemetrySettings({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318', OTEL_TRACES_EXPORTER: 'none' }, 'svc').enabled).toBe(false);
  });

  it('is on with an endpoint or OTEL_TRACES_EXPORTER=otlp, reading the standard variables', () => {
    const settings = loadTelemetrySettings(
      {
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/',
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
        OTEL_EXPORTER_OTLP_HEADERS: 'x-api-key=abc%3D,tenant=t1',
        OTEL_RESOURCE_ATTRIBUTES: 'deployment.environment.name=dev',
        OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
        OTEL_TRACES_SAMPLER_ARG: '0.25',
      },
      'svc',
    );
    expect(settings).toMatchObject({
      enabled: true,
      serviceName: 'svc',
      tracesUrl: 'http://collector:4318/v1/traces',
      protocol: 'http/json',
      headers: { 'x-api-key': 'abc=', tenant: 't1' },
      resourceAttributes: { 'deployment.environment.name': 'dev' },
      sampler: 'parentbased_traceidratio',
      samplerRatio: 0.25,
    });
    expect(loadTelemetrySettings({ OTEL_TRACES_EXPORTER: 'otlp', OTEL_SERVICE_NAME: 'named' }, 'svc')).toMatchObject({
      enabled: true,
      serviceName: 'named',
      tracesUrl: 'http://localhost:4318/v1/traces',
      protocol: 'http/protobuf',
    });
    expect(loadTelemetrySettings({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://c.example/x/traces' }, 'svc').tracesUrl).toBe('https://c.example/x/traces');
  });

  it('names each bad variable in one message, never a header value', () => {
    const attempt = () =>
      loadTelemetrySettings({ OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc', OTEL_EXPORTER_OTLP_HEADERS: 'secret-without-equals', OTEL_TRACES_SAMPLER_ARG: '2' }, 'svc');
    expect(attempt).toThrow(/OTEL_EXPORTER_OTLP_PROTOCOL must be http\/protobuf or http\/json.*OTEL_EXPORTER_OTLP_HEADERS.*OTEL_TRACES_SAMPLER_ARG/);
    expect(attempt).not.toThrow(/secret-without-equals/);
  });
});

describe('startTelemetry', () => {
  it('starts no SDK and sends nothing when no exporter is configured: spans are the no-op ones', async () => {
    const sink = await collector();
    try {
      started = startTelemetry(loadTelemetrySettings({}, 'svc'));
      expect(started.enabled).toBe(false);
      const recorded = await inSpan('work', {}, () => isRecording());
      expect(recorded).toBe(false);
      await started.shutdown();
      expect(sink.received).toEqual([]);
    } finally {
      await sink.close();
    }
  });

  it('exports the spans as OTLP/HTTP JSON with the configured headers and service name', async () => {
    const sink = await collector();
    try {
      started = startTelemetry(
        loadTelemetrySettings(
          { OTEL_EXPORTER_OTLP_ENDPOINT: sink.endpoint, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', OTEL_EXPORTER_OTLP_HEADERS: 'x-key=k1' },
          'svc',
        ),
      );
      expect(await inSpan('work', {}, () => isRecording())).toBe(true);
      await started.shutdown();
      started = undefined;
      expect(sink.received).toHaveLength(1);
      const [request] = sink.received;
      expect(request?.headers).toMatchObject({ 'content-type': 'application/json', 'x-key': 'k1' });
      expect(request?.body).toContain('"name":"work"');
      expect(request?.body).toContain('"stringValue":"svc"');
    } finally {
      await sink.close();
    }
  });
});
