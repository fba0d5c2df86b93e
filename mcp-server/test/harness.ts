// The whole stack on loopback for the gateway's tests: a real dev platform (its issuer behind a
// proxy that can stage an outage), the webhook API on SQLite, the MCP gateway (HTTP and its gRPC
// registry) and the webhook tool service registered at it; plus MCP SDK clients signed in as a
// seeded person on either protocol revision.
import { Client, StreamableHTTPClientTransport, type CallToolResult } from '@modelcontextprotocol/client';
import {
  devSecrets,
  personToken,
  seedWithToolPublishers,
  startProxiedPlatform,
  type PlatformProxy,
  type RunningPlatform,
} from '@platform/dev-platform/testing';
import { createLogger, loadPlatformMcpSettings, platformAppIdentity, type Logger, type Timers } from '@platform/tool-sdk';
import { createToolApp, defineTool, type ServingToolApp, type ToolApp } from '@platform/tool-sdk/tools';
import { captureLogs, listenOnFreePort, startedForTests, until, type ManualClock } from '@platform/tool-sdk/testing';
import { startToolService, type RunningToolService } from '@platform/tool-service/testing';
import { newStoreLocation, startWebhookApi } from '@platform/webhook-api/testing';
import { z } from 'zod';
import { registerConformanceTools } from '../../examples/conformance-tools.ts';
import { createMcpGateway, type McpGateway } from '../src/mcp-gateway.ts';
import { loadMcpServerSettings, type McpServerSettings } from '../src/settings.ts';

export type Era = 'legacy' | 'modern';
export const eras: readonly Era[] = ['legacy', 'modern'];

export interface Stack {
  readonly proxy: PlatformProxy;
  readonly platform: RunningPlatform;
  /** The platform's issuer and API base, as every part sees it (the proxy). */
  readonly issuer: string;
  readonly webhookApiUrl: string;
  /** The MCP endpoint, http://127.0.0.1:<port>/mcp. */
  readonly mcpUrl: string;
  readonly registryAddress: string;
  readonly gateway: McpGateway;
  readonly settings: McpServerSettings;
  readonly tools: RunningToolService | undefined;
  /** What the gateway logged, at debug level. */
  readonly logs: string[];
  /** A person's token for the MCP server (scripted login with the MCP URL as resource). */
  tokenFor(username: string, body?: Record<string, unknown>): Promise<string>;
  /** An MCP SDK client signed in as `username`, speaking `era`. */
  connect(username: string, era: Era, options?: ConnectOptions): Promise<Client>;
  close(): Promise<void>;
}

export interface ConnectOptions {
  /** Use this token instead of a fresh one for the person. */
  readonly token?: string;
  readonly client?: ConstructorParameters<typeof Client>[1];
}

export interface StackOptions {
  readonly platformEnv?: Readonly<Record<string, string>>;
  /** The platform's world; default the seed with fleet-insights a tool publisher too (the probe services' app). */
  readonly seed?: unknown;
  readonly gatewayEnv?: Readonly<Record<string, string>>;
  /** Start the webhook tool service and wait for its tools (default true). */
  readonly toolService?: boolean;
  /** The gateway's clock and timers, moved by the test; default the system's. */
  readonly clock?: ManualClock;
}

export async function startStack(options: StackOptions = {}): Promise<Stack> {
  const closers: (() => Promise<void>)[] = [];
  const close = async () => {
    for (const closer of closers.reverse()) await closer().catch(() => undefined);
  };
  try {
    const http = await listenOnFreePort();
    closers.push(() => http.close());
    const mcpUrl = `${http.url}/mcp`;
    const proxied = await startProxiedPlatform({
      env: { PLATFORM_EXTRA_RESOURCES: mcpUrl, ...options.platformEnv },
      seed: options.seed ?? seedWithToolPublishers('fleet-insights'),
    });
    closers.push(() => proxied.close());
    const { proxy, platform, issuer } = proxied;
    const api = await startWebhookApi({ location: await newStoreLocation('SQLite', ''), platformUrl: issuer });
    closers.push(() => api.close());

    const settings = loadMcpServerSettings({
      MCP_PUBLIC_URL: mcpUrl,
      PLATFORM_API_BASE_URL: issuer,
      MCP_GATEWAY_CLIENT_SECRET: devSecrets.MCP_GATEWAY_CLIENT_SECRET,
      REGISTRY_ADDRESS: '127.0.0.1:0',
      ...options.gatewayEnv,
    });
    const logs = captureLogs();
    const gateway = createMcpGateway({
      settings,
      logger: createLogger({ name: 'mcp-server', level: 'debug', destination: logs.destination }),
      ...(options.clock && { clock: options.clock, timers: options.clock }),
    });
    closers.push(() => gateway.close());
    http.server.on('request', gateway.app);
    const registry = await gateway.registry.serve(settings.registryAddress);
    closers.push(() => registry.close());

    let tools: RunningToolService | undefined;
    if (options.toolService !== false) {
      tools = await startToolService({ platformUrl: issuer, webhookApiUrl: api.url, registryAddress: registry.address });
      closers.push(() => tools?.close() ?? Promise.resolve());
      await until(() => gateway.registry.catalog().tools.length > 0, 'the tool service registered');
    }

    const tokenFor = (username: string, body: Record<string, unknown> = {}) => personToken(issuer, username, { resource: mcpUrl, ...body });
    return {
      proxy,
      platform,
      issuer,
      webhookApiUrl: api.url,
      mcpUrl,
      registryAddress: registry.address,
      gateway,
      settings,
      tools,
      logs: logs.lines,
      tokenFor,
      async connect(username, era, connectOptions = {}) {
        const token = connectOptions.token ?? (await tokenFor(username));
        const client = new Client(
          { name: 'gateway-test', version: '1.0.0' },
          {
            ...(era === 'modern' && { versionNegotiation: { mode: { pin: '2026-07-28' } } }),
            ...connectOptions.client,
          },
        );
        await client.connect(new StreamableHTTPClientTransport(new URL(mcpUrl), { authProvider: { token: () => Promise.resolve(token) } }));
        closers.push(() => client.close());
        return client;
      },
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}

export function stackForTests(options: StackOptions = {}, per?: 'file' | 'test'): () => Stack {
  return startedForTests(() => startStack(options), { per: per ?? 'file' });
}

export { until };

/** A tool result's text blocks, one a line. */
export const textOf = (result: CallToolResult): string => result.content.map((block) => (block.type === 'text' ? block.text : '')).join('\n');

/** A tool service for tests that records, inside the service, the token each call brought. */
export interface ProbeService {
  /** Every call the service ran: the tool, its arguments, ctx.authToken, and whether ctx.signal aborted. */
  readonly calls: { readonly tool: string; readonly args: unknown; readonly token: string; aborted: boolean }[];
  readonly serving: ServingToolApp;
  readonly logs: string[];
  /** The name MCP clients see for one of its tools: `<appKey>__<tool>`, or the tool's own for webhook-tools (the pinned app). */
  exposed(tool: string): string;
  close(): Promise<void>;
}

export interface ProbeOptions {
  /** The app it runs as; default fleet-insights (installed at company 1). */
  readonly appClientId?: 'fleet-insights' | 'webhook-tools';
  readonly serviceName?: string;
  /** Tool names; each echoes its arguments. Default ['echo']. */
  readonly tools?: readonly string[];
  /** A permission every tool requires, if any. */
  readonly requiresPermission?: string;
  readonly ttlSeconds?: number;
  /** Register at the gateway (default true); false only serves, for a test that registers by hand. */
  readonly register?: boolean;
  /** How long each call takes (it ends early when its signal aborts). Default 0. */
  readonly delayMs?: number;
  /** The time limit each tool declares (defineTool's timeoutMs); default none, the gateway's. */
  readonly toolTimeoutMs?: number;
  /** Times the registration's waits; a test passes the manual clock its gateway runs on. */
  readonly timers?: Timers;
  /** More of its environment (GRPC_TLS_* for a test over TLS). */
  readonly env?: Readonly<Record<string, string>>;
}

const appSecrets = { 'fleet-insights': devSecrets.FLEET_INSIGHTS_CLIENT_SECRET, 'webhook-tools': devSecrets.WEBHOOK_TOOLS_CLIENT_SECRET } as const;

/** What toolAppAt's app is and how it runs: more of its environment, its logger (a quiet one by default), its timers. */
export interface ToolAppAtOptions {
  readonly env?: Readonly<Record<string, string>>;
  readonly logger?: Logger;
  readonly timers?: Timers;
}

/** A tool app of `app` whose service `serviceName` registers at the stack's gateway when served: the test adds its tools. */
export function toolAppAt(
  stack: Pick<Stack, 'issuer' | 'registryAddress'>,
  app: keyof typeof appSecrets,
  serviceName: string,
  options: ToolAppAtOptions = {},
): ToolApp {
  const settings = loadPlatformMcpSettings({
    PLATFORM_API_BASE_URL: stack.issuer,
    APP_CLIENT_ID: app,
    APP_CLIENT_SECRET: appSecrets[app],
    SERVICE_NAME: serviceName,
    GATEWAY_ADDRESS: stack.registryAddress,
    CALLBACK_ADDRESS: '127.0.0.1:0',
    ...options.env,
  });
  const logger = options.logger ?? createLogger({ name: serviceName, level: 'warn' });
  return createToolApp({ settings, identity: platformAppIdentity(settings), logger, ...(options.timers && { timers: options.timers }) });
}

export async function startProbeService(stack: Pick<Stack, 'issuer' | 'registryAddress'>, options: ProbeOptions = {}): Promise<ProbeService> {
  const appClientId = options.appClientId ?? 'fleet-insights';
  const serviceName = options.serviceName ?? 'probe';
  const logs = captureLogs();
  const app = toolAppAt(stack, appClientId, serviceName, {
    env: { TOOL_REGISTRATION_TTL_SECONDS: String(options.ttlSeconds ?? 30), ...options.env },
    logger: createLogger({ name: serviceName, level: 'debug', destination: logs.destination }),
    ...(options.timers && { timers: options.timers }),
  });
  const calls: ProbeService['calls'] = [];
  app.registerTools(
    (options.tools ?? ['echo']).map((name) =>
      defineTool({
        name,
        title: `Echo (${name})`,
        description: `Echoes its arguments (${name}).`,
        inputSchema: z.strictObject({ text: z.string().max(10_000).optional(), companyId: z.number().int().positive().optional() }),
        ...(options.requiresPermission !== undefined && { requiresPermission: options.requiresPermission }),
        annotations: { readOnlyHint: true },
        ...(options.toolTimeoutMs !== undefined && { timeoutMs: options.toolTimeoutMs }),
        handler: async (args, ctx) => {
          const call = { tool: name, args, token: ctx.authToken, aborted: false };
          calls.push(call);
          if (options.delayMs) {
            await new Promise<void>((resolve) => {
              const timer = setTimeout(resolve, options.delayMs);
              ctx.signal.addEventListener('abort', () => {
                call.aborted = true;
                clearTimeout(timer);
                resolve();
              });
            });
          }
          return { echoed: args, callerId: ctx.callerId };
        },
      }),
    ),
  );
  const serving = await app.serve({ register: options.register ?? true });
  return {
    calls,
    serving,
    logs: logs.lines,
    exposed: (tool) => (appClientId === 'webhook-tools' ? tool : `${appClientId}__${tool}`),
    close: () => serving.close(),
  };
}

/**
 * The MCP conformance suite's fixture tools (examples/conformance-tools.ts) for the file's tests, as
 * a second service of the plain-named app (webhook-tools), so that they keep their own names.
 */
export function conformanceToolsForTests(stack: () => Stack): void {
  startedForTests(async () => {
    const app = toolAppAt(stack(), 'webhook-tools', 'conformance-tools');
    registerConformanceTools(app);
    const serving = await app.serve();
    await until(() => stack().gateway.registry.catalog().byName('test_simple_text') !== undefined, 'the conformance tools registered');
    return { close: () => serving.close() };
  });
}

/**
 * A probe service for the enclosing block's tests, started once the stack has, and registered at its
 * gateway (its first tool listed) before they run.
 */
export function probeForTests(stack: () => Stack, options: ProbeOptions = {}): () => ProbeService {
  return startedForTests(async () => {
    const probe = await startProbeService(stack(), options);
    const [tool = 'echo'] = options.tools ?? [];
    await until(() => stack().gateway.registry.catalog().byName(probe.exposed(tool)) !== undefined, `the ${options.serviceName ?? 'probe'} service registered`);
    return probe;
  });
}
