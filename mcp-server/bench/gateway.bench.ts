// Warm MCP tools/call of a no-op tool through the whole gateway path (Streamable HTTP, the cached
// caller check, a reused delegated token, gRPC to a tool service on the SDK) next to a bare MCP SDK
// server running the same no-op in-process, on both protocol revisions, in the same run: p50 and
// p99 latency of sequential calls, calls/s with calls in flight from several clients, and the
// servers' CPU time per call, which the machine's other load moves far less than calls/s. The
// servers run in a process of their own; this one only drives MCP SDK clients. Two more figures
// take the p50 apart: the gateway with CallTool answered in-process (all it adds but the gRPC hop),
// and the gRPC hop's floor (a grpc-js server that answers at once, called as the gateway calls).
// The targets are set against the gateway's fair floor, the minimal MCP-to-gRPC proxy: the bare
// MCP server whose tool handler makes the same grpc-js call to that bare grpc-js server.
// One more gateway runs its gRPC over mutual TLS, as npm start does: its p50 and calls/s against
// the plaintext gateway's, in the same rounds. The sides take their turns interleaved
// (interleaved-rounds.ts: small blocks of sequential calls side after side, short turns under
// load), and a missed target is followed by a CPU profile of the servers: where the difference goes.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { availableParallelism, loadavg } from 'node:os';
import { resolve } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { GrpcFloorFigures, GrpcLegFigures, ServersReady, ServersRequest, ServersSample } from './bench-servers.ts';
import { printEra, rates, targets, type Era, type EraResult } from './gateway-report.ts';
import { callLoad } from './tool-call-load.ts';
import { measureLoad, measureSequential, median, newTurns, p50Ratio, roundRatio, type Side } from './interleaved-rounds.ts';
import { profiledTurn } from './profile-report.ts';
import { sourceCondition } from '@platform/devtools/source-condition';
import { reportTracingCost } from './tracing-cost.ts';
import type { TracingFigures } from './tracing-switch.ts';

/** Sequential calls: the time of all sides together, taken in blocks of this many calls per side. */
const sequentialSeconds = 15;
const blockCalls = 10;
/** Under load: rounds of one turn per side, each this long, its first part not counted in calls/s. */
const loadRounds = 10;
const loadSeconds = 0.5;
const rampSeconds = 0.1;
const warmUpSeconds = 1;
/** Each side's profiled turn when a target is missed. */
const profileSeconds = 3;
/** Each round of the gRPC leg measured alone, and how many. */
const grpcLegSeconds = 1;
const grpcRounds = 3;
/** The tracing cost: sequential calls in blocks this large per mode (switching costs a provider each time), and its rounds under load. */
const tracingBlockCalls = 25;
const tracingSeconds = 8;
/** Calls in flight per client under load; there is one client per person token the servers process gives. */
const inFlightPerClient = 4;

// ---- the servers process ----

const child = spawn(process.execPath, [sourceCondition, '--expose-gc', resolve(import.meta.dirname, 'bench-servers.ts')], {
  stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
});
const exited = once(child, 'exit');
const nextMessage = async <T>() =>
  ((await Promise.race([once(child, 'message'), exited.then(() => Promise.reject(new Error('the servers process exited')))])) as [T])[0];
const ask = async <T>(request: ServersRequest) => {
  child.send(request);
  return nextMessage<T>();
};
const sample = (gc = false) => ask<ServersSample>({ kind: 'sample', gc });

/** How often each request reached the platform between two samples; only what changed. */
function platformDelta(before: ServersSample, after: ServersSample): Record<string, number> {
  return Object.fromEntries(
    Object.entries(after.platform)
      .map(([key, count]) => [key, count - (before.platform[key] ?? 0)] as const)
      .filter(([, count]) => count !== 0),
  );
}

async function connect(url: string, era: Era, token: string): Promise<Client> {
  const client = new Client({ name: 'gateway-bench', version: '1.0.0' }, era === 'modern' ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {});
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { authProvider: { token: () => Promise.resolve(token) } }));
  return client;
}

const profileServers = (start: boolean) => ask<unknown>({ kind: 'profile', start });

async function measureEra(ready: ServersReady, era: Era): Promise<EraResult> {
  const bareUrl = `${ready.bareUrl}/${era}`;
  const connectAll = (url: string, tokens = ready.tokens) => Promise.all(tokens.map((token) => connect(url, era, token)));
  const side = (name: string, clients: readonly Client[], sequentialOnly = false, tool?: Side['tool']): Side => ({
    name,
    clients,
    sequentialOnly,
    ...(tool && { tool }),
    turns: newTurns(),
  });
  const gateway = side('gateway', await connectAll(ready.gatewayUrl));
  const bare = side('bare', await connectAll(bareUrl));
  const minimalProxy = side('proxy', await connectAll(`${ready.minimalProxyUrl}/${era}`));
  const hopless = side('hopless', [await connect(ready.hoplessUrl, era, ready.hoplessToken)], true);
  const tls = side('tls', await connectAll(ready.tlsUrl, ready.tlsTokens));
  // A tool that streams ten progress events to a client that gave a progress token, priced beside the no-op.
  const progress = side('progress', gateway.clients.slice(0, 1), true, 'progress10');
  const sides = [gateway, tls, minimalProxy, bare, hopless, progress];
  try {
    // The warm-up fills the caches: each token's caller check and delegated token, the tool service's caller check.
    for (const { clients } of sides) await callLoad(clients, inFlightPerClient, warmUpSeconds);
    const before = await sample();
    await measureSequential(sides, { seconds: sequentialSeconds, blockCalls });
    await measureLoad(sides, {
      rounds: loadRounds,
      seconds: loadSeconds,
      rampSeconds,
      inFlightPerClient,
      cpuMicros: async (gc) => (await sample(gc)).cpuMicros,
    });
    const platform = platformDelta(before, await sample());
    // A missed target is followed by a profile of the servers over a turn of each side like the ones measured.
    const profilePair = async (clientsOf: (side: Side) => readonly Client[], inFlight: number) => ({
      gateway: await profiledTurn(clientsOf(gateway), inFlight, profileSeconds, profileServers),
      proxy: await profiledTurn(clientsOf(minimalProxy), inFlight, profileSeconds, profileServers),
    });
    const sequentialProfiles = p50Ratio(gateway.turns, minimalProxy.turns).ratio > targets.p50 ? await profilePair((s) => s.clients.slice(0, 1), 1) : undefined;
    const loadProfiles =
      roundRatio(rates(gateway.turns), rates(minimalProxy.turns)).ratio < targets.callsPerSecond
        ? await profilePair((s) => s.clients, inFlightPerClient)
        : undefined;
    return {
      era,
      gateway: gateway.turns,
      minimalProxy: minimalProxy.turns,
      bare: bare.turns,
      hopless: hopless.turns,
      tls: tls.turns,
      progress: progress.turns,
      platform,
      ...(sequentialProfiles && { sequentialProfiles }),
      ...(loadProfiles && { loadProfiles }),
    };
  } finally {
    await Promise.all(sides.flatMap((s) => s.clients).map((client) => client.close().catch(() => undefined)));
  }
}

function coldRequests(platform: Record<string, number>): number {
  return (platform['POST /token token-exchange'] ?? 0) + (platform['GET /api/me'] ?? 0);
}

try {
  const ready = await nextMessage<ServersReady>();
  if (ready.tokens.length === 0) throw new Error('the servers process sent no tokens');
  const results: EraResult[] = [];
  for (const era of ['legacy', 'modern'] as const) results.push(await measureEra(ready, era));
  const grpcLegRounds: GrpcLegFigures[] = [];
  for (let round = 0; round < grpcRounds; round++) {
    await sample(true);
    grpcLegRounds.push(await ask<GrpcLegFigures>({ kind: 'grpc-leg', inFlight: inFlightPerClient * ready.tokens.length, seconds: grpcLegSeconds }));
  }
  const grpcFloorRounds: GrpcFloorFigures[] = [];
  for (let round = 0; round < grpcRounds; round++) {
    await sample(true);
    grpcFloorRounds.push(await ask<GrpcFloorFigures>({ kind: 'grpc-floor', seconds: grpcLegSeconds }));
  }
  const grpcFloor: GrpcFloorFigures = { p50Micros: median(grpcFloorRounds.map((r) => r.p50Micros)) };
  const grpcLeg: GrpcLegFigures = {
    callsPerSecond: median(grpcLegRounds.map((r) => r.callsPerSecond)),
    cpuMicrosPerCall: median(grpcLegRounds.map((r) => r.cpuMicrosPerCall)),
  };

  console.log(
    `\ngateway: MCP → caller check (cached) → delegated token (reused) → gRPC → tool service on the SDK → no-op;` +
      `\nproxy: an MCP SDK server whose no-op makes one grpc-js call to a bare grpc-js server (no auth, no SDK);` +
      `\nbare: an MCP SDK server with the no-op in-process. Sequential calls in blocks of ${blockCalls} per side, side after side, for ${sequentialSeconds} s` +
      ` (p50 and p99 over all of a side's calls); then ${loadRounds} rounds of a ${loadSeconds} s turn under load per side (the first ${rampSeconds} s not counted),` +
      ` the medians of the turns. Servers in their own process; 1-min load average ${(loadavg()[0] ?? 0).toFixed(1)} on ${availableParallelism()} CPUs.`,
  );
  for (const result of results) printEra(result, { clients: ready.tokens.length, inFlightPerClient, loadRounds, grpcLeg, grpcFloor });
  console.log(
    `\nThe gRPC leg alone: CallTool of the no-op from the servers process with a delegated token, ${inFlightPerClient * ready.tokens.length} in flight` +
      ` (grpc-js client, the tool service's grpc-js server and SDK): ${grpcLeg.callsPerSecond.toFixed(0)} calls/s, ${grpcLeg.cpuMicrosPerCall.toFixed(0)} µs of CPU per call.` +
      `\nThe gRPC hop's floor: sequential CallTool from the servers process, with the delegated token and the gateway's deadline, of a grpc-js` +
      ` server that answers at once (no SDK): p50 ${grpcFloor.p50Micros.toFixed(0)} µs.`,
  );
  const tracingClients = await Promise.all(ready.tokens.map((token) => connect(ready.gatewayUrl, 'modern', token)));
  try {
    await reportTracingCost({
      clients: tracingClients,
      inFlightPerClient,
      sequential: { seconds: tracingSeconds, blockCalls: tracingBlockCalls },
      load: { rounds: loadRounds, seconds: loadSeconds, rampSeconds },
      profileSeconds,
      setTracing: (on) => ask<TracingFigures>({ kind: 'tracing', on }),
      cpuMicros: async (gc) => (await sample(gc)).cpuMicros,
      profile: profileServers,
    });
  } finally {
    await Promise.all(tracingClients.map((client) => client.close().catch(() => undefined)));
  }
  const cold = results.filter((result) => coldRequests(result.platform) > 0);
  if (cold.length > 0) {
    console.error(`\nnot warm: token exchanges or GET /api/me during the measured rounds (${cold.map((result) => result.era).join(', ')})`);
    process.exitCode = 1;
  }
} finally {
  child.disconnect();
  await exited;
}
