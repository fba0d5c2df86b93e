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
// the plaintext gateway's, in the same rounds.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { availableParallelism, loadavg } from 'node:os';
import { resolve } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { collectGarbage } from '@platform/devtools/bench-report';
import { printTarget } from '@platform/devtools/bench-targets';
import type { GrpcFloorFigures, GrpcLegFigures, ServersReady, ServersRequest, ServersSample } from './bench-servers.ts';
import { callLoad, type LoadFigures } from './tool-call-load.ts';
import { sourceCondition } from '@platform/devtools/source-condition';
import { reportTracingCost } from './tracing-cost.ts';
import type { TracingFigures } from './tracing-switch.ts';

const rounds = 3;
const sequentialSeconds = 1.5;
const loadSeconds = 1.5;
const warmUpSeconds = 1;
/** Each round of the gRPC leg measured alone. */
const grpcLegSeconds = 1;
/** Calls in flight per client under load; there is one client per person token the servers process gives. */
const inFlightPerClient = 4;
/** Against the minimal MCP-to-gRPC proxy: p50 at most, calls/s at least. */
const targets = { p50: 1.15, callsPerSecond: 0.85 } as const;

type Era = 'legacy' | 'modern';
const eraTitles: Record<Era, string> = { legacy: '2025-11-25, sessions', modern: '2026-07-28, stateless' };

interface Measured {
  sequential: LoadFigures[];
  load: LoadFigures[];
  cpuMicrosPerCall: number[];
}

interface Side {
  readonly clients: readonly Client[];
  readonly measured: Measured;
}

const median = (values: readonly number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;

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

/** Measures one side for one round: sequential latency, then (unless `sequentialOnly`) calls/s under load with the servers' CPU time. */
async function measureRound(side: Side, sequentialOnly = false): Promise<void> {
  collectGarbage();
  await sample(true);
  const [first] = side.clients;
  if (!first) throw new Error('no client');
  side.measured.sequential.push(await callLoad([first], 1, sequentialSeconds));
  if (sequentialOnly) return;
  const before = await sample();
  const load = await callLoad(side.clients, inFlightPerClient, loadSeconds);
  const after = await sample();
  side.measured.load.push(load);
  side.measured.cpuMicrosPerCall.push((after.cpuMicros - before.cpuMicros) / load.calls);
}

interface EraResult {
  readonly era: Era;
  readonly gateway: Measured;
  readonly minimalProxy: Measured;
  readonly bare: Measured;
  /** The gateway with CallTool answered in-process: sequential only. */
  readonly hopless: Measured;
  /** The gateway with gRPC over mutual TLS. */
  readonly tls: Measured;
  readonly platform: Record<string, number>;
}

async function measureEra(ready: ServersReady, era: Era): Promise<EraResult> {
  const bareUrl = `${ready.bareUrl}/${era}`;
  const connectAll = (url: string) => Promise.all(ready.tokens.map((token) => connect(url, era, token)));
  const gateway: Side = { clients: await connectAll(ready.gatewayUrl), measured: { sequential: [], load: [], cpuMicrosPerCall: [] } };
  const bare: Side = { clients: await connectAll(bareUrl), measured: { sequential: [], load: [], cpuMicrosPerCall: [] } };
  const minimalProxy: Side = { clients: await connectAll(`${ready.minimalProxyUrl}/${era}`), measured: { sequential: [], load: [], cpuMicrosPerCall: [] } };
  const hopless: Side = { clients: [await connect(ready.hoplessUrl, era, ready.hoplessToken)], measured: { sequential: [], load: [], cpuMicrosPerCall: [] } };
  const tls: Side = {
    clients: await Promise.all(ready.tlsTokens.map((token) => connect(ready.tlsUrl, era, token))),
    measured: { sequential: [], load: [], cpuMicrosPerCall: [] },
  };
  const sides = [gateway, tls, minimalProxy, bare, hopless];
  try {
    // The warm-up fills the caches: each token's caller check and delegated token, the tool service's caller check.
    for (const side of sides) await callLoad(side.clients, inFlightPerClient, warmUpSeconds);
    const before = await sample();
    for (let round = 0; round < rounds; round++) {
      // Interleaved, and in alternating order, so a slow patch of the machine falls on all alike.
      for (const side of round % 2 === 0 ? sides : sides.toReversed()) await measureRound(side, side === hopless);
    }
    return {
      era,
      gateway: gateway.measured,
      minimalProxy: minimalProxy.measured,
      bare: bare.measured,
      hopless: hopless.measured,
      tls: tls.measured,
      platform: platformDelta(before, await sample()),
    };
  } finally {
    await Promise.all(sides.flatMap((side) => side.clients).map((client) => client.close().catch(() => undefined)));
  }
}

// ---- the report ----

interface Figures {
  readonly p50: number;
  readonly p99: number;
  readonly callsPerSecond: number;
  readonly loadP50: number;
  readonly loadP99: number;
  readonly cpu: number;
}

const figuresOf = (measured: Measured): Figures => ({
  p50: median(measured.sequential.map((r) => r.p50Ms)),
  p99: median(measured.sequential.map((r) => r.p99Ms)),
  callsPerSecond: median(measured.load.map((r) => r.callsPerSecond)),
  loadP50: median(measured.load.map((r) => r.p50Ms)),
  loadP99: median(measured.load.map((r) => r.p99Ms)),
  cpu: median(measured.cpuMicrosPerCall),
});

/** One metric: the gateway, the minimal proxy and the bare server, and the gateway's ratio to each. */
function row(metric: string, gateway: number, proxy: number, bare: number, digits: number): string {
  // Three decimals, so that a ratio just short of its target never reads as on it.
  const cells = [
    metric.padEnd(44),
    gateway.toFixed(digits).padStart(9),
    proxy.toFixed(digits).padStart(9),
    bare.toFixed(digits).padStart(9),
    `${(gateway / proxy).toFixed(3)}x`.padStart(8),
    `${(gateway / bare).toFixed(3)}x`.padStart(8),
  ];
  return `  ${cells.join(' ')}`;
}

function printEra(result: EraResult, clients: number, grpcLeg: GrpcLegFigures, grpcFloor: GrpcFloorFigures): void {
  const { era, platform } = result;
  const g = figuresOf(result.gateway);
  const p = figuresOf(result.minimalProxy);
  const b = figuresOf(result.bare);
  const hoplessP50 = median(result.hopless.sequential.map((r) => r.p50Ms));
  console.log(`\nMCP tools/call of a no-op tool, warm, ${eraTitles[era]}`);
  console.log(`  ${'metric'.padEnd(44)} ${'gateway'.padStart(9)} ${'proxy'.padStart(9)} ${'bare'.padStart(9)} ${'÷proxy'.padStart(8)} ${'÷bare'.padStart(8)}`);
  console.log(row('p50 latency, sequential (ms)', g.p50, p.p50, b.p50, 3));
  console.log(row('p99 latency, sequential (ms)', g.p99, p.p99, b.p99, 3));
  console.log(row('p50, gateway without its gRPC hop (ms)', hoplessP50, p.p50, b.p50, 3));
  console.log(row(`calls/s, ${inFlightPerClient * clients} in flight over ${clients} clients`, g.callsPerSecond, p.callsPerSecond, b.callsPerSecond, 0));
  console.log(row('p50 latency at that load (ms)', g.loadP50, p.loadP50, b.loadP50, 3));
  console.log(row('p99 latency at that load (ms)', g.loadP99, p.loadP99, b.loadP99, 3));
  console.log(row('servers CPU time per call under load (µs)', g.cpu, p.cpu, b.cpu, 0));
  const extra = g.cpu - p.cpu;
  console.log(
    `  the gateway's extra ${extra.toFixed(0)} µs of CPU per call over the proxy (caller check, delegated token, registry, SDK context, result checks);` +
      ` the SDK's gRPC leg alone takes ${grpcLeg.cpuMicrosPerCall.toFixed(0)} µs`,
  );
  const budget = (targets.p50 - 1) * p.p50 * 1000;
  const hop = (g.p50 - hoplessP50) * 1000;
  const proxyHop = (p.p50 - b.p50) * 1000;
  console.log(
    `  the p50 target leaves ${budget.toFixed(0)} µs over the proxy; the gateway's hop costs ${hop.toFixed(0)} µs in place, the proxy's ${proxyHop.toFixed(0)} µs` +
      ` (a bare grpc-js call alone, hot, ${grpcFloor.p50Micros.toFixed(0)} µs)`,
  );
  const of = 'the minimal proxy';
  printTarget({
    name: `Gateway p50, ${era === 'legacy' ? '2025-11-25' : '2026-07-28'},`,
    figure: g.p50 / p.p50,
    unit: 'x',
    of,
    atMost: targets.p50,
    digits: 3,
  });
  printTarget({
    name: `Gateway calls/s, ${era === 'legacy' ? '2025-11-25' : '2026-07-28'},`,
    figure: g.callsPerSecond / p.callsPerSecond,
    unit: 'x',
    of,
    atLeast: targets.callsPerSecond,
    digits: 3,
  });
  const t = figuresOf(result.tls);
  const versus = (metric: string, withTls: number, plain: number, digits: number) =>
    `  ${metric.padEnd(44)} ${withTls.toFixed(digits).padStart(9)} ${plain.toFixed(digits).padStart(9)} ${`${(withTls / plain).toFixed(3)}x`.padStart(8)}`;
  console.log(`  ${'gRPC over mutual TLS (npm start) vs plaintext'.padEnd(44)} ${'TLS'.padStart(9)} ${'plain'.padStart(9)} ${'ratio'.padStart(8)}`);
  console.log(versus('p50 latency, sequential (ms)', t.p50, g.p50, 3));
  console.log(versus(`calls/s, ${inFlightPerClient * clients} in flight over ${clients} clients`, t.callsPerSecond, g.callsPerSecond, 0));
  const asked = Object.entries(platform).map(([key, count]) => `${key} ×${count}`);
  console.log(`  platform asked during the measured rounds: ${asked.length === 0 ? 'nothing' : asked.join(', ')}`);
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
  for (let round = 0; round < rounds; round++) {
    await sample(true);
    grpcLegRounds.push(await ask<GrpcLegFigures>({ kind: 'grpc-leg', inFlight: inFlightPerClient * ready.tokens.length, seconds: grpcLegSeconds }));
  }
  const grpcFloorRounds: GrpcFloorFigures[] = [];
  for (let round = 0; round < rounds; round++) {
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
      `\nbare: an MCP SDK server with the no-op in-process. Median of ${rounds} interleaved rounds of ${sequentialSeconds} s sequential` +
      ` and ${loadSeconds} s under load each; servers in their own process; 1-min load average ${(loadavg()[0] ?? 0).toFixed(1)} on ${availableParallelism()} CPUs.`,
  );
  for (const result of results) printEra(result, ready.tokens.length, grpcLeg, grpcFloor);
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
      rounds,
      inFlightPerClient,
      sequentialSeconds,
      loadSeconds,
      setTracing: (on) => ask<TracingFigures>({ kind: 'tracing', on }),
      cpuMicros: async () => (await sample()).cpuMicros,
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
