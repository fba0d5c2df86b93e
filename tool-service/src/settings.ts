// The tool service's settings: the SDK's tool-service settings (PlatformMcpSettings) with this
// service's defaults, plus where the webhook API is and how much to log. Read once at start, frozen;
// every bad variable is named in one SETTINGS_INVALID message. The client secret has no default.
import {
  isPlatformError,
  loadPlatformMcpSettings,
  parseEnvironment,
  PlatformError,
  setting,
  type Environment,
  type LogLevel,
  type PlatformMcpSettings,
} from '@platform/shared';

export interface ToolServiceSettings extends PlatformMcpSettings {
  /** The webhook REST API's base address: part of the platform API, so it takes the delegated token. */
  readonly webhookApiBaseUrl: string;
  readonly logLevel: LogLevel;
}

/** What this service is when the environment does not say otherwise. */
export const toolServiceDefaults = {
  SERVICE_NAME: 'webhook-tools',
  APP_CLIENT_ID: 'webhook-tools',
  CALLBACK_ADDRESS: '127.0.0.1:50051',
} as const;

const ownShape = {
  WEBHOOK_API_BASE_URL: setting.baseUrl.default('http://127.0.0.1:4100'),
  LOG_LEVEL: setting.logLevel.default('info'),
};

/** The problems a SETTINGS_INVALID error lists; any other error is not a settings problem and is thrown on. */
function problemsOf(error: unknown): string[] {
  if (!isPlatformError(error, 'SETTINGS_INVALID')) throw error;
  return [error.message.replace(/^Invalid settings: /, '').replace(/\.$/, '')];
}

/** Reads the tool service's settings from the environment; throws SETTINGS_INVALID naming every bad variable. */
export function loadToolServiceSettings(env: Environment): ToolServiceSettings {
  // An empty variable counts as unset, here as in the SDK, so it takes the default too.
  const defaulted = Object.fromEntries(Object.entries(toolServiceDefaults).map(([name, value]) => [name, env[name] || value]));
  const problems: string[] = [];
  let sdk: PlatformMcpSettings | undefined;
  let own: ReturnType<typeof parseEnvironment<typeof ownShape>> | undefined;
  try {
    sdk = loadPlatformMcpSettings({ ...env, ...defaulted });
  } catch (error) {
    problems.push(...problemsOf(error));
  }
  try {
    own = parseEnvironment(ownShape, env);
  } catch (error) {
    problems.push(...problemsOf(error));
  }
  if (!sdk || !own) throw new PlatformError('SETTINGS_INVALID', `Invalid settings: ${problems.join('; ')}.`);
  return Object.freeze({ ...sdk, webhookApiBaseUrl: own.WEBHOOK_API_BASE_URL, logLevel: own.LOG_LEVEL });
}
