// Starts the tool service on a loopback port the OS chooses, against a real platform and webhook
// API, for whole-process tests here and in the MCP server: its gRPC address, a client, and every
// line it logged (for secret scans).
import { createLogger, platformAppIdentity } from '@platform/tool-sdk';
import type { ServingToolApp } from '@platform/tool-sdk/tools';
import { captureLogs, startedForTests, toolClient, type CallAnswer, type StartedForTestsOptions, type ToolClient } from '@platform/tool-sdk/testing';
import { delegatedToken, devSecrets } from '@platform/dev-platform/testing';
import { beforeAll, expect } from 'vitest';
import { loadToolServiceSettings, type ToolServiceSettings } from '../src/settings.ts';
import { createToolService } from '../src/tool-service.ts';

export interface StartToolServiceOptions {
  /** The platform's issuer and API base (startPlatform().issuer). */
  readonly platformUrl: string;
  readonly webhookApiUrl: string;
  /** A registry (gateway) to register at; without one the service serves unannounced. */
  readonly registryAddress?: string;
  /** More environment variables, over the harness's (APP_CLIENT_ID, APP_CLIENT_SECRET, ...). */
  readonly env?: Readonly<Record<string, string>>;
}

export interface RunningToolService {
  /** The gRPC address, host:port. */
  readonly address: string;
  readonly client: ToolClient;
  /** Every line the service logged, at debug level. */
  readonly logs: string[];
  readonly serving: ServingToolApp;
  readonly settings: ToolServiceSettings;
  close(): Promise<void>;
}

export async function startToolService(options: StartToolServiceOptions): Promise<RunningToolService> {
  const settings = loadToolServiceSettings({
    PLATFORM_API_BASE_URL: options.platformUrl,
    WEBHOOK_API_BASE_URL: options.webhookApiUrl,
    APP_CLIENT_SECRET: devSecrets.WEBHOOK_TOOLS_CLIENT_SECRET,
    CALLBACK_ADDRESS: '127.0.0.1:0',
    ...(options.registryAddress !== undefined && { GATEWAY_ADDRESS: options.registryAddress }),
    ...options.env,
  });
  const logs = captureLogs();
  const logger = createLogger({ name: 'tool-service', level: 'debug', destination: logs.destination });
  const app = createToolService({ settings, identity: platformAppIdentity(settings), logger });
  const serving = await app.serve({ register: options.registryAddress !== undefined });
  const client = toolClient(serving.address);
  return {
    address: serving.address,
    client,
    logs: logs.lines,
    serving,
    settings,
    async close() {
      client.close();
      await serving.close();
    },
  };
}

/** The tool service for the enclosing block's tests; `options` is read when it starts (after the platform and API have). */
export function startedToolServiceForTests(options: () => StartToolServiceOptions, per?: StartedForTestsOptions): () => RunningToolService {
  return startedForTests(() => startToolService(options()), per);
}

/** The people whose delegated tokens (to webhook-tools) the tool tests call with. */
export interface DelegatedTokens {
  /** Manages devices at Acme Telemetry (1). */
  readonly oscar: string;
  /** Views devices at Acme Telemetry (1) only. */
  readonly vera: string;
}

/**
 * Delegated tokens of oscar and vera, made once for the file from a real token exchange, and the
 * calls the tests make with them (as oscar unless told): `call` answers what the service answered,
 * `result` the structured result of a call that must succeed.
 */
export function delegatedCalls(platformUrl: () => string, service: () => RunningToolService) {
  const tokens = { oscar: '', vera: '' };
  beforeAll(async () => {
    tokens.oscar = await delegatedToken(platformUrl(), 'oscar');
    tokens.vera = await delegatedToken(platformUrl(), 'vera');
  });
  const call = (name: string, args: unknown, token = tokens.oscar) => service().client.call(name, args, token);
  async function result<T = Record<string, unknown>>(name: string, args: unknown, token = tokens.oscar): Promise<T> {
    const answer = await call(name, args, token);
    expect(answer).toMatchObject({ ok: true, isError: false });
    return (answer as Extract<CallAnswer, { ok: true }>).result as T;
  }
  return { tokens: tokens as DelegatedTokens, call, result };
}
