// The servers the gateway benchmark loads, in a process of their own so that the MCP clients that
// drive the load do not share their event loop: the whole path (the dev platform behind a counting
// proxy, the gateway and its gRPC registry, a tool service on the SDK with a no-op tool, registered
// at the gateway), and the bare MCP SDK server next to it. Two more take the gateway apart: a
// second gateway whose CallTool is answered in-process (everything but the gRPC hop), and a bare
// grpc-js ToolService (the gRPC hop and nothing else). Reports its addresses and the people's
// tokens over IPC, then answers the benchmark's requests (see ServersRequest).
//
// The tool service shares this process's event loop with the gateway, where in production it is a
// process of its own. On a small machine that favours the gateway rather than hurting it: measured
// on 2 CPUs with the tool service in a child process, the gRPC leg of a sequential call took
// 1.25–1.4 ms instead of ~0.55 ms (a wake-up of another process each way), and the gateway's p50
// rose from 2.0 to 2.8 ms (2025-11-25) and from 2.8 to 3.2 ms (2026-07-28) in one interleaved run.
import * as grpc from '@grpc/grpc-js';
import { createTestPki } from '@platform/devtools/test-certificates';
import { createLogger, loadPlatformMcpSettings, platformAppIdentity, type Logger } from '@platform/tool-sdk';
import { createToolApp, defineTool } from '@platform/tool-sdk/tools';
import { listenOnFreePort, toolClient, until, type Listening } from '@platform/tool-sdk/testing';
import { delegatedToken, devSecrets, personToken, seedWithToolPublishers, startPlatform } from '@platform/dev-platform/testing';
import { loadToolsProto, type CallToolEvent__Output, type ToolResult, type ToolResult__Output } from '@platform/proto';
import type { CallToolResult } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { createMcpGateway, type McpGateway } from '../src/mcp-gateway.ts';
import type { ToolServiceAnswer } from '../src/remote-tools.ts';
import { loadMcpServerSettings } from '../src/settings.ts';
import { createToolServicePool, type ToolServicePool } from '../src/tool-services/index.ts';
import { createBareMcpServer } from './bare-mcp-server.ts';
import { startCountingProxy } from './counting-proxy.ts';
export type { GrpcFloorFigures, GrpcLegFigures } from './grpc-hop.ts';
import { createTracingSwitch, type TracingFigures } from './tracing-switch.ts';
import { measureGrpcFloor, measureGrpcLeg, startFloorServer, type GrpcFloorFigures, type GrpcLegFigures } from './grpc-hop.ts';
import { startCpuProfile, type ProfileSummary } from './cpu-profile.ts';

export interface ServersReady {
  /** The gateway's MCP endpoint. */
  readonly gatewayUrl: string;
  /** The bare server's base URL: /legacy and /modern. */
  readonly bareUrl: string;
  /** The minimal MCP-to-gRPC proxy's base URL: /legacy and /modern. */
  readonly minimalProxyUrl: string;
  /** One person token for the gateway per client, of people who may use the no-op's app. */
  readonly tokens: readonly string[];
  /** The MCP endpoint of the gateway without its gRPC hop, and a person token for it. */
  readonly hoplessUrl: string;
  readonly hoplessToken: string;
  /** The MCP endpoint of a gateway whose gRPC runs over mutual TLS, as npm start runs it, and its people's tokens. */
  readonly tlsUrl: string;
  readonly tlsTokens: readonly string[];
}

export type ServersRequest =
  /** This process's CPU time so far and what the platform was asked; after a garbage collection when `gc`. */
  | { readonly kind: 'sample'; readonly gc: boolean }
  /** The gRPC leg alone: CallTool of the no-op from this process, as the gateway sends it, `inFlight` at a time. */
  | { readonly kind: 'grpc-leg'; readonly inFlight: number; readonly seconds: number }
  /** The gRPC hop's floor: sequential CallTool, as the gateway sends it, of a grpc-js server that answers at once (no SDK). */
  | { readonly kind: 'grpc-floor'; readonly seconds: number }
  /** Tracing on (every span sampled, exported to a counting no-op) or off; answers the spans exported so far. */
  | { readonly kind: 'tracing'; readonly on: boolean }
  /** Starts a CPU profile of this process (answered with a sample), or stops it (answered with its summary). */
  | { readonly kind: 'profile'; readonly start: boolean };

export interface ServersSample {
  /** User + system CPU time of this process so far. */
  readonly cpuMicros: number;
  /** What the platform was asked so far, by `METHOD /path` (token requests by grant). */
  readonly platform: Readonly<Record<string, number>>;
}

/** Seeded people of company 1, where the no-op's app (fleet-insights) is installed. */
const people = ['oscar', 'vera', 'olivia', 'oscar'];
/** Longer than the whole run: a count of GET /api/me then means "not cached", never "expired once". */
const meCacheTtlSeconds = '600';

// Everything the servers log is a warning at least: a per-request line at debug or info would
// measure the logger, not the gateway.
const logger = (name: string): Logger => createLogger({ name, level: 'warn' });

/** What the no-op answers, as the gateway's pool hands it on: `{ ok: true }`. */
const noopResult = { content: [], structuredContentJson: '{"ok":true}', isError: false } satisfies ToolResult;
const noopAnswer: ToolServiceAnswer = { ok: true, result: noopResult };

const proxy = await startCountingProxy();
const gatewayHttp = await listenOnFreePort();
const gatewayUrl = `${gatewayHttp.url}/mcp`;
const hoplessHttp = await listenOnFreePort();
const hoplessUrl = `${hoplessHttp.url}/mcp`;
const tlsHttp = await listenOnFreePort();
const tlsUrl = `${tlsHttp.url}/mcp`;
// The platform's test harness logs at debug into memory; it is asked nothing once the caches are warm.
// The no-op's app, fleet-insights, publishes tools here (the default seed marks webhook-tools only).
const platform = await startPlatform({
  env: { PLATFORM_ISSUER: proxy.url, PLATFORM_EXTRA_RESOURCES: `${gatewayUrl},${hoplessUrl},${tlsUrl}` },
  seed: seedWithToolPublishers('fleet-insights'),
});
proxy.target = platform.issuer;

// Mutual TLS as npm start runs it: the gateway and the tool service each with a certificate of one CA.
const pki = await createTestPki();
const mutualTls = (own: { certFile: string; keyFile: string }) => ({
  GRPC_TLS_CA_FILE: pki.caFile,
  GRPC_TLS_CERT_FILE: own.certFile,
  GRPC_TLS_KEY_FILE: own.keyFile,
  GRPC_TLS_REQUIRE_CLIENT_CERT: 'true',
});

/** A gateway at `publicUrl`, attached to its HTTP server, with its registry serving on a free port. */
async function startGateway(http: Listening, publicUrl: string, toolServices?: ToolServicePool, env: Record<string, string> = {}) {
  const settings = loadMcpServerSettings({
    MCP_PUBLIC_URL: publicUrl,
    PLATFORM_API_BASE_URL: proxy.url,
    MCP_GATEWAY_CLIENT_SECRET: devSecrets.MCP_GATEWAY_CLIENT_SECRET,
    REGISTRY_ADDRESS: '127.0.0.1:0',
    ME_CACHE_TTL_SECONDS: meCacheTtlSeconds,
    // The no-op's app keeps its tool's own name, as the webhook tools do by default.
    REGISTRY_PLAIN_NAMES_APP: 'fleet-insights',
    ...env,
  });
  const gateway = createMcpGateway({ settings, logger: logger('mcp-server'), ...(toolServices && { toolServices }) });
  http.server.on('request', gateway.app);
  const registry = await gateway.registry.serve(settings.registryAddress);
  return { gateway, registry, callTimeoutMs: settings.toolCallTimeoutMs };
}

/** A tool service on the SDK with the no-op, registered at `registryAddress`; resolves once the gateway lists it. */
async function startNoopService(registryAddress: string, gateway: McpGateway, env: Record<string, string> = {}) {
  const toolSettings = loadPlatformMcpSettings({
    PLATFORM_API_BASE_URL: proxy.url,
    APP_CLIENT_ID: 'fleet-insights',
    APP_CLIENT_SECRET: devSecrets.FLEET_INSIGHTS_CLIENT_SECRET,
    SERVICE_NAME: 'bench',
    GATEWAY_ADDRESS: registryAddress,
    CALLBACK_ADDRESS: '127.0.0.1:0',
    ME_CACHE_TTL_SECONDS: meCacheTtlSeconds,
    ...env,
  });
  const tools = createToolApp({ settings: toolSettings, identity: platformAppIdentity(toolSettings), logger: logger('bench-tools') });
  tools.registerTools([
    defineTool({
      name: 'noop',
      title: 'No-op',
      description: 'Answers { ok: true }; for the benchmark.',
      inputSchema: z.strictObject({}),
      annotations: { readOnlyHint: true },
      handler: () => ({ ok: true }),
    }),
    defineTool({
      name: 'progress10',
      title: 'Ten progress reports',
      description: 'Reports progress ten times, then answers { ok: true }; for the benchmark.',
      inputSchema: z.strictObject({}),
      annotations: { readOnlyHint: true },
      handler: (_args, ctx) => {
        for (let step = 1; step <= 10; step += 1) ctx.progress(step, 10);
        return { ok: true };
      },
    }),
  ]);
  const served = await tools.serve();
  await until(() => gateway.registry.catalog().byName('noop') !== undefined, 'the tool service registered its no-op');
  return served;
}

const { gateway, registry, callTimeoutMs } = await startGateway(gatewayHttp, gatewayUrl);
const toolService = await startNoopService(registry.address, gateway);

// The gateway without its gRPC hop: its own pool lists the tool service's tools over gRPC, but
// CallTool is answered in-process, after the caller check and the delegated token as always.
const hoplessPool = createToolServicePool();
const hopless = await startGateway(hoplessHttp, hoplessUrl, { ...hoplessPool, callTool: () => Promise.resolve(noopAnswer) });
const hoplessToolService = await startNoopService(hopless.registry.address, hopless.gateway);

// The whole path again, with gRPC over mutual TLS.
const tls = await startGateway(tlsHttp, tlsUrl, undefined, mutualTls(pki.server));
const tlsToolService = await startNoopService(tls.registry.address, tls.gateway, mutualTls(pki.client));

const bare = createBareMcpServer();
const bareHttp = await listenOnFreePort();
bareHttp.server.on('request', bare.app);

const tokens = await Promise.all(people.map((username) => personToken(proxy.url, username, { resource: gatewayUrl })));
const hoplessToken = await personToken(proxy.url, 'oscar', { resource: hoplessUrl });
const tlsTokens = await Promise.all(people.map((username) => personToken(proxy.url, username, { resource: tlsUrl })));

// The gRPC leg alone, the way the gateway calls it: a delegated token for (oscar, fleet-insights).
const grpcLeg = toolClient(toolService.address);
const grpcLegToken = await delegatedToken(proxy.url, 'oscar', 'fleet-insights', devSecrets.FLEET_INSIGHTS_CLIENT_SECRET);

// The gRPC hop's floor: a grpc-js ToolService that answers the no-op at once, no SDK, called by
// the gateway's pool with the same delegated token and deadline.
const floor = await startFloorServer(noopResult);
const floorAddress = floor.address;
const floorPool = createToolServicePool();
const floorLease = floorPool.lease(floorAddress);

// The gateway's floor: the bare MCP server whose no-op makes one grpc-js CallToolStream to the bare
// grpc-js server above and answers its result. No caller check, no token, no registry, no SDK on
// either side: an MCP-to-gRPC proxy built from the same two libraries, in the same process layout.
const minimalProxyClient = new (loadToolsProto().ToolService)(floorAddress, grpc.credentials.createInsecure());
const minimalProxy = createBareMcpServer(
  () =>
    new Promise<CallToolResult>((resolve, reject) => {
      let result: ToolResult__Output | undefined;
      const stream = minimalProxyClient.CallToolStream({ name: 'noop', argumentsJson: '{}', requestId: '' });
      stream.on('data', (event: CallToolEvent__Output) => {
        result ??= event.result ?? undefined;
      });
      stream.on('error', reject);
      stream.on('end', () => {
        if (!result) reject(new Error('CallToolStream answered nothing'));
        else
          resolve({
            content: [{ type: 'text', text: result.structuredContentJson }],
            structuredContent: JSON.parse(result.structuredContentJson) as Record<string, unknown>,
          });
      });
    }),
);
const minimalProxyHttp = await listenOnFreePort();
minimalProxyHttp.server.on('request', minimalProxy.app);

const tracing = createTracingSwitch();
let stopProfile: (() => Promise<ProfileSummary>) | undefined;

async function profile(start: boolean): Promise<ServersSample | ProfileSummary> {
  if (start) {
    stopProfile = await startCpuProfile();
    return answer({ kind: 'sample', gc: false }) as Promise<ServersSample>;
  }
  const stop = stopProfile;
  stopProfile = undefined;
  return stop ? stop() : {};
}

async function answer(request: ServersRequest): Promise<ServersSample | GrpcLegFigures | GrpcFloorFigures | TracingFigures | ProfileSummary> {
  if (request.kind === 'tracing') return tracing.set(request.on);
  if (request.kind === 'profile') return profile(request.start);
  if (request.kind === 'grpc-leg') {
    return measureGrpcLeg(async () => {
      const answer = await grpcLeg.call('noop', {}, grpcLegToken, { deadlineMs: 30_000 });
      if (!answer.ok || answer.isError) throw new Error(`CallTool of the no-op failed: ${JSON.stringify(answer)}`);
    }, request);
  }
  if (request.kind === 'grpc-floor') {
    return measureGrpcFloor(async () => {
      const answer = await floorPool.callTool(floorAddress, { name: 'noop', argumentsJson: '{}', requestId: '1' }, grpcLegToken, { deadlineMs: callTimeoutMs });
      if (!answer.ok) throw new Error(`CallTool of the bare grpc-js server failed: ${JSON.stringify(answer)}`);
    }, request.seconds);
  }
  if (request.gc) globalThis.gc?.();
  const { user, system } = process.cpuUsage();
  return { cpuMicros: user + system, platform: proxy.counts() };
}

const ready: ServersReady = { gatewayUrl, bareUrl: bareHttp.url, minimalProxyUrl: minimalProxyHttp.url, tokens, hoplessUrl, hoplessToken, tlsUrl, tlsTokens };
process.send?.(ready);
process.on('message', (request: ServersRequest) => {
  answer(request).then(
    (reply) => process.send?.(reply),
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
});
// The benchmark ends this process by disconnecting (or by dying): then everything stops.
process.once('disconnect', () => {
  void (async () => {
    grpcLeg.close();
    await minimalProxy.close();
    await minimalProxyHttp.close();
    minimalProxyClient.close();
    floorLease.release();
    floorPool.close();
    floor.close();
    await bare.close();
    await bareHttp.close();
    await toolService.close(0);
    await registry.close();
    await gateway.close();
    await gatewayHttp.close();
    await hoplessToolService.close(0);
    await hopless.registry.close();
    await hopless.gateway.close();
    await hoplessHttp.close();
    await tlsToolService.close(0);
    await tls.registry.close();
    await tls.gateway.close();
    await tlsHttp.close();
    await platform.close();
    await proxy.close();
  })().finally(() => process.exit(0));
});
