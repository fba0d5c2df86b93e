// The tool service's settings: the SDK's tool-service settings (PlatformMcpSettings) with this
// service's defaults, plus where the webhook API is and how much to log. Read once at start, frozen;
// every bad variable is named in one SETTINGS_INVALID message. The client secret has no default.
import { loadToolServiceSettingsWith, setting, type Environment, type LogLevel, type PlatformMcpSettings } from '@platform/tool-sdk';
import { platformMcpVariables } from '@platform/tool-sdk/internal';

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

/** Reads the tool service's settings from the environment; throws SETTINGS_INVALID naming every bad variable. */
export function loadToolServiceSettings(env: Environment): ToolServiceSettings {
  const { settings, own } = loadToolServiceSettingsWith(env, { own: ownShape, defaults: toolServiceDefaults });
  return Object.freeze({ ...settings, webhookApiBaseUrl: own.WEBHOOK_API_BASE_URL, logLevel: own.LOG_LEVEL });
}
