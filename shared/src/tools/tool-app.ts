// createToolApp: a tool service built on the SDK. It takes the app's settings and identity, the
// tools, and serves them over gRPC (with health and reflection), checking every call's delegated
// token at the platform, and keeps itself registered at the gateway while it serves.
import { format } from 'node:util';
import * as grpc from '@grpc/grpc-js';
import type { Logger } from 'pino';
import { createCallerCheck } from '../caller/check-caller.ts';
import type { Clock } from '../time/clock.ts';
import { channelCredentialsOf, createGrpcTls } from '../grpc/tls.ts';
import type { HttpClient } from '../http/client.ts';
import { createPlatformHttpClient, platformFetchOf, type PlatformAppIdentity } from '../identity/platform-app-identity.ts';
import type { PlatformMcpSettings } from '../settings/platform-settings.ts';
import type { Timers } from '../time/timers.ts';
import { createGatewayRegistration, type GatewayRegistration, type GatewayRegistrationOptions } from './gateway-registration.ts';
import { ToolDefinitionError, type ToolDefinition } from './tool-definition.ts';
import { createToolRunner } from './tool-runner.ts';
import { startToolServer } from './tool-server.ts';
import { createMetricsHandler, serveMetrics, type MetricsListener } from '../observability/metrics-endpoint.ts';
import type { ToolMetricsSettings } from '../observability/metrics-settings.ts';
import { createToolServiceMetrics } from '../observability/tool-call-telemetry.ts';

/** How old the permissions a call is judged by may be, in seconds (the webhook API's WEBHOOK_PERMISSIONS_MAX_AGE default). */
const permissionsMaxAgeSeconds = 2;

/** What a tool app is built from: the settings, the app's identity, a logger. */
export interface ToolAppOptions {
  /** The settings (`loadPlatformMcpSettings` or `loadToolServiceSettingsWith`). */
  readonly settings: PlatformMcpSettings;
  /** The app's identity (platformAppIdentity(settings)): its token registers the service at the gateway. */
  readonly identity: PlatformAppIdentity;
  /** The service's logger; each call logs on a child carrying its request id and tool. */
  readonly logger: Logger;
  /**
   * Other base addresses that are part of the platform API, by name (the webhook API on its own
   * port): the only places besides apiBaseUrl a tool may send the delegated token, through
   * `ctx.platformApi(name)`.
   */
  readonly platformApiBaseUrls?: Readonly<Record<string, string>>;
  /** Sends the SDK's requests to the platform (caller checks, the tools' platform clients); a test may pass its own. */
  readonly httpClient?: HttpClient;
  /** Judges cached token checks and calls' deadlines; default the system's. */
  readonly clock?: Clock;
  /** Arms calls' deadlines and the registration's waits; a test passes its manual clock (with `clock`) and moves it. */
  readonly timers?: Timers;
  /** Registry retry and call timing; the defaults suit production. */
  readonly registration?: Pick<GatewayRegistrationOptions, 'backoff' | 'callTimeoutMs'>;
  /** Prometheus metrics of the calls (loadToolMetricsSettings): served on their own port when one is set. */
  readonly metrics?: ToolMetricsSettings;
}

/** Where a tool app listens, and whether it registers at the gateway. */
export interface ServeOptions {
  /** Where to listen, host:port; default the settings' callbackAddress. Port 0 takes a free port. */
  readonly listenAddress?: string;
  /** Register at the gateway (default true); false serves without announcing the service. */
  readonly register?: boolean;
}

/** A serving tool app: its address, its registration, and how to stop it. */
export interface ServingToolApp {
  /** The address the service listens on, host:port. */
  readonly address: string;
  /** The registration at the gateway; undefined when served with `register: false`. */
  readonly registration: GatewayRegistration | undefined;
  /** The port of the /metrics listener, when the settings gave one. */
  readonly metricsPort: number | undefined;
  /** Stops heartbeats, refuses new calls, lets running calls finish (up to `graceMs`), then deregisters. */
  close(graceMs?: number): Promise<void>;
}

/** A tool service: tools registered on it, then served. */
export interface ToolApp {
  /**
   * Adds tools; a name used twice is refused with a message naming it. While serving, the gateway
   * is told at once and its clients see the new list (MCP `notifications/tools/list_changed`).
   */
  registerTools(tools: readonly ToolDefinition[]): void;
  /** Withdraws tools by name while serving (or before); the gateway is told at once. Unknown names are ignored. */
  removeTools(names: readonly string[]): void;
  /** The tools registered so far. */
  readonly tools: readonly ToolDefinition[];
  /** Serves the tools over gRPC with health and reflection, then registers at the gateway. */
  serve(options?: ServeOptions): Promise<ServingToolApp>;
}

/**
 * grpc-js writes its own reports (a failed bind, a dropped connection) straight to stderr; a tool
 * service's belong in its log, where a failure to start stays the one line its main prints.
 */
function routeGrpcLogs(logger: Logger): void {
  grpc.setLogger({
    error: (...parts: unknown[]) => {
      logger.warn({ grpc: format(...parts) }, 'grpc-js reported a problem');
    },
    info: (...parts: unknown[]) => {
      logger.debug({ grpc: format(...parts) }, 'grpc-js');
    },
    debug: (...parts: unknown[]) => {
      logger.trace({ grpc: format(...parts) }, 'grpc-js');
    },
  });
}

/**
 * A tool service on the SDK.
 *
 * @example
 * ```ts
 * const settings = loadPlatformMcpSettings(process.env);
 * const app = createToolApp({ settings, identity: platformAppIdentity(settings), logger: createLogger({ name: settings.serviceName }) });
 * app.registerTools([myTool]);
 * const serving = await app.serve();
 * ```
 */
export function createToolApp(options: ToolAppOptions): ToolApp {
  const { settings, identity, logger } = options;
  if (identity.clientId !== settings.appClientId) throw new TypeError('createToolApp: identity must be the identity of settings.appClientId');
  const platformApiBaseUrls = new Map(Object.entries(options.platformApiBaseUrls ?? {}));
  for (const [name, url] of platformApiBaseUrls)
    if (!URL.canParse(url)) throw new TypeError(`createToolApp: platformApiBaseUrls.${name} must be an absolute URL`);
  const tools: ToolDefinition[] = [];
  let serving = false;
  /** Tells the running service and the gateway of a changed list; nothing before serve(). */
  let changed: () => void = () => undefined;

  return {
    registerTools(added) {
      for (const [index, tool] of added.entries()) {
        if ([...tools, ...added.slice(0, index)].some((known) => known.name === tool.name)) {
          throw new ToolDefinitionError(`tool "${tool.name}": name is used by another tool of this service`);
        }
      }
      tools.push(...added);
      changed();
    },
    removeTools(names) {
      const before = tools.length;
      tools.splice(0, tools.length, ...tools.filter((tool) => !names.includes(tool.name)));
      if (tools.length !== before) changed();
    },
    get tools() {
      return [...tools];
    },
    async serve(serveOptions = {}) {
      if (tools.length === 0) throw new TypeError('serve: register at least one tool first');
      if (serving) throw new TypeError('serve: the app is already serving');
      serving = true;
      routeGrpcLogs(logger);
      const metrics = createToolServiceMetrics(settings.serviceName);
      const checkCaller = createCallerCheck({
        apiBaseUrl: settings.apiBaseUrl,
        audience: settings.apiBaseUrl,
        httpClient: options.httpClient ?? createPlatformHttpClient(settings),
        cacheTtlSeconds: settings.meCacheTtlSeconds,
        // The identity stays cached, but the permissions a call sees (ctx.hasPermission, whoami) are
        // never older than the webhook API's bound: a revoked role shows within it, not after the cache's 60 s.
        ...(settings.meCacheTtlSeconds > 0 && { permissionsMaxAgeSeconds: Math.min(permissionsMaxAgeSeconds, settings.meCacheTtlSeconds) }),
        // Only a token delegated to this app: not a person's own, not one delegated to another app.
        actor: { clientId: settings.appClientId },
        ...(options.clock && { clock: options.clock }),
        observe: (cached) => {
          metrics.callerChecked(cached);
        },
      });
      const runner = createToolRunner({
        tools: [...tools],
        checkCaller,
        logger,
        apiBaseUrl: settings.apiBaseUrl,
        platformApiBaseUrls,
        httpTimeoutMs: settings.httpTimeoutMs,
        fetch: platformFetchOf(settings),
        observer: metrics,
      });
      const tls = settings.grpcTls && createGrpcTls(settings.grpcTls);
      const server = await startToolServer(
        runner,
        serveOptions.listenAddress ?? settings.callbackAddress,
        { ...(options.clock && { clock: options.clock }), ...(options.timers && { timers: options.timers }) },
        {
          tls,
          onTlsRefusal: ({ peer, reason, refusedHere }) => {
            logger[refusedHere ? 'warn' : 'debug']({ peer, reason }, 'refused a gRPC client at the TLS handshake; it sent nothing');
          },
        },
      );
      const callbackAddress = settings.callbackAddress.endsWith(':0') ? server.address : settings.callbackAddress;
      const registration =
        serveOptions.register === false
          ? undefined
          : createGatewayRegistration({
              gatewayAddress: settings.gatewayAddress,
              serviceName: settings.serviceName,
              callbackAddress,
              ttlSeconds: settings.ttlSeconds,
              accessToken: () => identity.accessToken(),
              logger,
              channelCredentials: channelCredentialsOf(tls),
              onRegisteredChange: (registered) => {
                server.setRegistered(registered);
              },
              ...(options.timers && { timers: options.timers }),
              ...options.registration,
            });
      registration?.start();
      changed = () => {
        runner.setTools([...tools]);
        registration?.announce();
      };
      const { metrics: metricsSettings } = options;
      let metricsListener: MetricsListener | undefined;
      if (metricsSettings?.port !== undefined && metricsSettings.access !== undefined) {
        metricsListener = await serveMetrics(createMetricsHandler(metrics.registry, metricsSettings.access), {
          host: metricsSettings.host,
          port: metricsSettings.port,
          portVariable: 'METRICS_PORT',
        });
      }
      logger.info({ address: server.address, tools: tools.length, serviceName: settings.serviceName }, `serving ${tools.length} tools over gRPC`);
      return {
        address: server.address,
        registration,
        metricsPort: metricsListener?.port,
        async close(graceMs) {
          // New calls are refused and running ones finish; only then is the registration withdrawn.
          await server.close(graceMs);
          await registration?.stop();
          await metricsListener?.close();
        },
      };
    },
  };
}
