// The OpenTelemetry settings of a service, from the standard OTEL_* variables. Tracing is off
// unless an exporter is configured (an OTLP endpoint, or OTEL_TRACES_EXPORTER), so a service
// started without them exports nothing and starts no SDK. Header values (they may hold a
// collector's credentials) are parsed here and never echoed.
import { z } from 'zod';
import { parseSettings, setting, type Environment, type SettingsPart } from '../settings/vocabulary.ts';

export type OtlpProtocol = 'http/protobuf' | 'http/json';
export type TraceSampler = 'always_on' | 'always_off' | 'traceidratio' | 'parentbased_always_on' | 'parentbased_always_off' | 'parentbased_traceidratio';

export interface TelemetrySettings {
  readonly enabled: boolean;
  readonly serviceName: string;
  /** Where spans are POSTed: the traces endpoint as given, or `{endpoint}/v1/traces`. */
  readonly tracesUrl: string;
  readonly protocol: OtlpProtocol;
  /** Sent with every export (a collector's API key): never logged. */
  readonly headers: Readonly<Record<string, string>>;
  readonly resourceAttributes: Readonly<Record<string, string>>;
  readonly sampler: TraceSampler;
  /** The ratio of the traceidratio samplers, 0 to 1. */
  readonly samplerRatio: number;
}

const endpoint = z
  .string()
  .trim()
  .refine((value) => URL.canParse(value) && /^https?:$/.test(new URL(value).protocol), 'must be an http or https URL');
const protocol = z.enum(['http/protobuf', 'http/json', 'grpc'], { error: () => 'must be http/protobuf or http/json' }).refine((value) => value !== 'grpc', {
  message: 'must be http/protobuf or http/json (grpc is not supported: point it at the collector’s OTLP/HTTP port, 4318)',
});
const keyValueList = z.string().transform((value, context) => {
  const pairs: Record<string, string> = {};
  for (const entry of value.split(',')) {
    if (entry.trim() === '') continue;
    const at = entry.indexOf('=');
    // Named without the value: it may be a credential.
    if (at <= 0) context.addIssue({ code: 'custom', message: 'must be a comma-separated list of key=value pairs' });
    else {
      try {
        pairs[decodeURIComponent(entry.slice(0, at).trim())] = decodeURIComponent(entry.slice(at + 1).trim());
      } catch {
        context.addIssue({ code: 'custom', message: 'must be percent-encoded key=value pairs' });
      }
    }
  }
  return pairs;
});
const samplers = ['always_on', 'always_off', 'traceidratio', 'parentbased_always_on', 'parentbased_always_off', 'parentbased_traceidratio'] as const;

const telemetryShape = {
  OTEL_SDK_DISABLED: setting.flag.default(false),
  OTEL_TRACES_EXPORTER: z.enum(['otlp', 'none'], { error: () => 'must be otlp or none' }).optional(),
  OTEL_EXPORTER_OTLP_ENDPOINT: endpoint.optional(),
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: endpoint.optional(),
  OTEL_EXPORTER_OTLP_PROTOCOL: protocol.optional(),
  OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: protocol.optional(),
  OTEL_EXPORTER_OTLP_HEADERS: keyValueList.optional(),
  OTEL_EXPORTER_OTLP_TRACES_HEADERS: keyValueList.optional(),
  OTEL_SERVICE_NAME: setting.text.optional(),
  OTEL_RESOURCE_ATTRIBUTES: keyValueList.optional(),
  OTEL_TRACES_SAMPLER: z.enum(samplers, { error: () => `must be one of ${samplers.join(', ')}` }).default('parentbased_always_on'),
  OTEL_TRACES_SAMPLER_ARG: z
    .string()
    .trim()
    .refine((value) => /^(0(\.\d+)?|1(\.0+)?)$/.test(value), 'must be a number from 0 to 1')
    .transform(Number)
    .optional(),
};

/** Every OTEL_* variable a service reads: .env.example lists each. */
export const telemetryVariables: readonly string[] = Object.freeze(Object.keys(telemetryShape));

/** The OTLP/HTTP traces path under a collector's base endpoint. */
const tracesPath = 'v1/traces';

/**
 * The OTEL_* variables as a part of a service's one settings parse; `defaultServiceName` names the
 * service unless OTEL_SERVICE_NAME does (a function: taken from the values of the same parse).
 */
export function telemetrySettingsPart(
  defaultServiceName: string | ((values: Readonly<Record<string, unknown>>) => string),
): SettingsPart<typeof telemetryShape, TelemetrySettings> {
  return {
    shape: telemetryShape,
    build: (values) => toTelemetrySettings(values, typeof defaultServiceName === 'string' ? defaultServiceName : defaultServiceName(values)),
  };
}

/** Reads the OTEL_* variables; `defaultServiceName` names the service unless OTEL_SERVICE_NAME does. */
export function loadTelemetrySettings(env: Environment, defaultServiceName: string): TelemetrySettings {
  return parseSettings(env, { telemetry: telemetrySettingsPart(defaultServiceName) }).telemetry;
}

function toTelemetrySettings(s: z.output<z.ZodObject<typeof telemetryShape>>, defaultServiceName: string): TelemetrySettings {
  const base = s.OTEL_EXPORTER_OTLP_ENDPOINT ?? 'http://localhost:4318';
  const tracesUrl = s.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ?? `${base}${base.endsWith('/') ? '' : '/'}${tracesPath}`;
  const configured =
    s.OTEL_TRACES_EXPORTER === 'otlp' ||
    (s.OTEL_TRACES_EXPORTER === undefined && (s.OTEL_EXPORTER_OTLP_ENDPOINT ?? s.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) !== undefined);
  const resourceAttributes = s.OTEL_RESOURCE_ATTRIBUTES ?? {};
  return Object.freeze({
    enabled: configured && !s.OTEL_SDK_DISABLED,
    serviceName: s.OTEL_SERVICE_NAME ?? resourceAttributes['service.name'] ?? defaultServiceName,
    tracesUrl,
    protocol: s.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ?? s.OTEL_EXPORTER_OTLP_PROTOCOL ?? 'http/protobuf',
    headers: Object.freeze({ ...s.OTEL_EXPORTER_OTLP_HEADERS, ...s.OTEL_EXPORTER_OTLP_TRACES_HEADERS }),
    resourceAttributes: Object.freeze(resourceAttributes),
    sampler: s.OTEL_TRACES_SAMPLER,
    samplerRatio: s.OTEL_TRACES_SAMPLER_ARG ?? 1,
  });
}
