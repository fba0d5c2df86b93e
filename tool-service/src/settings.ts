// The tool service's settings: the SDK's tool-service settings (PlatformMcpSettings) with this
// service's defaults, plus where the webhook API is and how much to log. Read once at start, frozen;
// every bad variable is named in one SETTINGS_INVALID message. The client secret has no default.
import { setting, type Environment, type LogLevel, type PlatformMcpSettings } from '@platform/tool-sdk';
import {
  parseSettings,
  platformMcpVariables,
  telemetrySettingsPart,
  toolMetricsSettingsPart,
  toolServiceSettingsPart,
  type SettingsPart,
} from '@platform/tool-sdk/internal';
import type { TelemetrySettings, ToolMetricsSettings } from '@platform/tool-sdk/observability';
import type { z } from 'zod';

export interface ToolServiceSettings extends PlatformMcpSettings {
  /** The webhook REST API's base address: part of the platform API, so it takes the delegated token. */
  readonly webhookApiBaseUrl: string;
  readonly logLevel: LogLevel;
}

/** What this service is when the environment does not say otherwise. */
const toolServiceDefaults = {
  SERVICE_NAME: 'webhook-tools',
  APP_CLIENT_ID: 'webhook-tools',
  CALLBACK_ADDRESS: '127.0.0.1:50051',
} as const;

const ownShape = {
  WEBHOOK_API_BASE_URL: setting.baseUrl.default('http://127.0.0.1:4100'),
  LOG_LEVEL: setting.logLevel.default('info'),
};

/** Every variable the tool service's settings read, the SDK's and its own: .env.example lists each. */
export const toolServiceVariables: readonly string[] = Object.freeze([...platformMcpVariables, ...Object.keys(ownShape)]);

const sdkPart = toolServiceSettingsPart({ own: ownShape, defaults: toolServiceDefaults });

/** The service's settings, the SDK's and its own, as a part of its process's one settings parse. */
const toolServiceSettingsOf: SettingsPart<z.ZodRawShape, ToolServiceSettings> = {
  ...sdkPart,
  build: (values, env) => {
    const { settings, own } = sdkPart.build(values, env);
    return Object.freeze({ ...settings, webhookApiBaseUrl: own.WEBHOOK_API_BASE_URL, logLevel: own.LOG_LEVEL });
  },
};

/** Reads the tool service's settings from the environment; throws SETTINGS_INVALID naming every bad variable. */
export function loadToolServiceSettings(env: Environment): ToolServiceSettings {
  return parseSettings(env, { settings: toolServiceSettingsOf }).settings;
}

/** Everything the tool service's process reads from its environment: its settings, its /metrics listener, its tracing. */
export interface ToolServiceProcessSettings {
  readonly settings: ToolServiceSettings;
  readonly metrics: ToolMetricsSettings;
  readonly telemetry: TelemetrySettings;
}

/** Reads all of the tool service's process settings in one parse: one SETTINGS_INVALID message names every bad variable of every group. */
export function loadToolServiceProcessSettings(env: Environment): ToolServiceProcessSettings {
  return parseSettings(env, {
    settings: toolServiceSettingsOf,
    metrics: toolMetricsSettingsPart,
    // Traces name the service as it registers, unless OTEL_SERVICE_NAME says otherwise.
    telemetry: telemetrySettingsPart((values) => String(values.SERVICE_NAME)),
  });
}
