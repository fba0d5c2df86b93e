// CallToolStream of a no-op tool through the SDK (cached caller check, argument schema, permission
// check, the per-call log line), in requests/s and p50/p99 latency, next to a bare grpc-js handler of
// the same ToolService (one result event) measured in the same run; and the servers' CPU time per call, which the
// machine's other load moves far less than requests/s. The servers run in a process of their own,
// so the load driver's client work does not share their event loop.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { availableParallelism, loadavg } from 'node:os';
import * as grpc from '@grpc/grpc-js';
import { UnsecuredJWT } from 'jose';
import { pino } from 'pino';
import { z } from 'zod';
import { loadToolsProto, type CallToolEvent__Output, type ToolServiceClient, type ToolServiceHandlers } from '@platform/proto';
import { collectGarbage, printComparison, printLatencies } from '@platform/devtools/bench-report';
import { printTarget } from '@platform/devtools/bench-targets';
import { createLogger } from '../src/service/logger.ts';
import { platformAppIdentity } from '../src/identity/platform-app-identity.ts';
import { loadPlatformMcpSettings } from '../src/settings/platform-settings.ts';
import { startPlatformFixture } from '../src/testing/index.ts';
import { createToolApp, defineTool } from '../src/tools/index.ts';
import { sourceCondition } from '@platform/devtools/source-condition';
import { bindOnLoopback } from '@platform/devtools/grpc-loopback';

const appClientId = 'bench-tools';
const workers = 32;
const rounds = 5;
const secondsPerRound = 2;
const warmUpSeconds = 1;
const targetRatio = 0.7;
const argumentsJson = '{"companyId":1}';
const okResult = '{"ok":true}';

interface Addresses {
  readonly sdk: string;
  readonly bare: string;
}

// ---- the servers, in their own process: `--serve=<platform url>`; they report over IPC ----

async function serve(platformUrl: string): Promise<void> {
  const settings = loadPlatformMcpSettings({
    PLATFORM_API_BASE_URL: platformUrl,
    APP_CLIENT_ID: appClientId,
    APP_CLIENT_SECRET: 'bench-secret',
    SERVICE_NAME: appClientId,
    // Longer than the whole run, so the count of GET /api/me below means "cached", not "expired once".
    ME_CACHE_TTL_SECONDS: '600',
  });
  // The production logger (redaction included) at info: the per-call line is part of the real cost.
  const logger = createLogger({ name: appClientId, level: 'info', destination: pino.destination('/dev/null') });
  const app = createToolApp({ settings, identity: platformAppIdentity(settings), logger });
  app.registerTools([
    defineTool({
      name: 'bench_noop',
      title: 'No-op',
      description: 'Answers { ok: true }; for the benchmark.',
      inputSchema: z.strictObject({ companyId: z.number().int() }),
      requiresPermission: 'bench:use',
      handler: () => ({ ok: true }),
    }),
  ]);
  const sdk = await app.serve({ listenAddress: '127.0.0.1:0', register: false });

  const bare = new grpc.Server();
  const handlers: Pick<ToolServiceHandlers, 'ListTools' | 'CallToolStream'> = {
    ListTools: (_call, callback) => {
      callback(null, { tools: [] });
    },
    CallToolStream: (call) => {
      call.write({ result: { content: [], structuredContentJson: okResult, isError: false } });
      call.end();
    },
  };
  bare.addService(loadToolsProto().ToolService.service, handlers);
  const bareAddress = await bindOnLoopback(bare, grpc.ServerCredentials.createInsecure());
  const addresses: Addresses = { sdk: sdk.address, bare: bareAddress };
  process.send?.(addresses);
  // Any message asks for the CPU time this process has used so far; a lost parent ends it.
  process.on('message', () => {
    const { user, system } = process.cpuUsage();
    process.send?.({ cpuMicros: user + system });
  });
  process.once('disconnect', () => process.exit(0));
}

// ---- the load: closed-loop workers over one channel per target ----

interface Round {
  readonly calls: number;
  readonly requestsPerSecond: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
}

/** One CallToolStream; rejects unless it ends OK with the no-op's result, not is_error. */
function callTool(client: ToolServiceClient, metadata: grpc.Metadata): Promise<void> {
  return new Promise((resolve, reject) => {
    let result: CallToolEvent__Output['result'];
    const stream = client.CallToolStream({ name: 'bench_noop', argumentsJson, requestId: '' }, metadata, { deadline: Date.now() + 10_000 });
    stream.on('data', (event: CallToolEvent__Output) => {
      result ??= event.result;
    });
    stream.on('error', (error: grpc.ServiceError) => {
      reject(new Error(`CallToolStream failed: ${grpc.status[error.code]} ${error.details}`));
    });
    stream.on('end', () => {
      if (!result || result.isError || result.structuredContentJson !== okResult)
        reject(new Error(`CallToolStream answered something else than the no-op's result: ${JSON.stringify(result)}`));
      else resolve();
    });
  });
}

/** The value at quantile `q` of ascending `sorted` (nearest rank). */
function quantile(sorted: Float64Array, q: number): number {
  return sorted[Math.max(0, Math.ceil(q * sorted.length) - 1)] ?? Number.NaN;
}

/** `workers` calls in flight, each issued as soon as the previous one answers, for `seconds`. */
async function drive(client: ToolServiceClient, metadata: grpc.Metadata, seconds: number): Promise<Round> {
  const latencies: number[] = [];
  const started = process.hrtime.bigint();
  const end = started + BigInt(seconds * 1e9);
  let failure: Error | undefined;
  const worker = async () => {
    while (failure === undefined && process.hrtime.bigint() < end) {
      const before = process.hrtime.bigint();
      try {
        await callTool(client, metadata);
      } catch (error) {
        failure ??= error instanceof Error ? error : new Error(String(error));
        return;
      }
      latencies.push(Number(process.hrtime.bigint() - before) / 1e6);
    }
  };
  await Promise.all(Array.from({ length: workers }, worker));
  if (failure !== undefined) throw failure;
  const elapsedSeconds = Number(process.hrtime.bigint() - started) / 1e9;
  const sorted = Float64Array.from(latencies).sort();
  return { calls: latencies.length, requestsPerSecond: latencies.length / elapsedSeconds, p50Ms: quantile(sorted, 0.5), p99Ms: quantile(sorted, 0.99) };
}

interface Figures {
  readonly cpuMicrosPerCall: number;
  readonly requestsPerSecond: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
}

const median = (values: readonly number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;

/** A delegated-token-sized JWT (the SDK never verifies it): the cache key hashes the whole token. */
function delegatedToken(audience: string): string {
  const now = Math.floor(Date.now() / 1000);
  return new UnsecuredJWT({ sub: 'user-1', act: { sub: appClientId }, aud: audience, scope: 'api', jti: crypto.randomUUID(), iss: audience })
    .setIssuedAt(now)
    .setExpirationTime(now + 3600)
    .encode();
}

async function measure(): Promise<void> {
  const platform = await startPlatformFixture();
  const token = delegatedToken(platform.url);
  platform.stage(token, {
    id: 'user-1',
    audience: [platform.url],
    actor: { clientId: appClientId },
    companies: [{ id: 1, name: 'Acme Telemetry', isOwner: false, roles: [], permissions: ['bench:use'] }],
  });
  const child = spawn(process.execPath, [sourceCondition, import.meta.filename, `--serve=${platform.url}`], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const exited = once(child, 'exit');
  const nextMessage = async <T>() =>
    ((await Promise.race([once(child, 'message'), exited.then(() => Promise.reject(new Error('the servers exited')))])) as [T])[0];
  const serverCpuMicros = async () => {
    child.send('cpu');
    return (await nextMessage<{ cpuMicros: number }>()).cpuMicros;
  };
  const clients: ToolServiceClient[] = [];
  try {
    const addresses = await nextMessage<Addresses>();
    const metadata = new grpc.Metadata();
    metadata.set('authorization', `Bearer ${token}`);
    const target = (address: string) => {
      const client = new (loadToolsProto().ToolService)(address, grpc.credentials.createInsecure());
      clients.push(client);
      return { client, rounds: [] as Round[], cpuPerCall: [] as number[] };
    };
    const targets = [target(addresses.sdk), target(addresses.bare)];

    // The warm-up also fills the caller cache: the SDK's first call is the only one that waits for
    // GET /api/me; after it the answer is refreshed in the background (the permissions' 2 s max age,
    // refreshed from half of it), at most once a second whatever the number of calls.
    const started = performance.now();
    for (const { client } of targets) await drive(client, metadata, warmUpSeconds);
    for (let round = 0; round < rounds; round++) {
      // Interleaved, and in alternating order, so a slow patch of the machine falls on both alike.
      for (const { client, rounds: measured, cpuPerCall } of round % 2 === 0 ? targets : [...targets].reverse()) {
        collectGarbage();
        const cpuBefore = await serverCpuMicros();
        const result = await drive(client, metadata, secondsPerRound);
        cpuPerCall.push(((await serverCpuMicros()) - cpuBefore) / result.calls);
        measured.push(result);
      }
    }
    const meCalls = platform.calls(token);
    const elapsedSeconds = (performance.now() - started) / 1000;
    if (meCalls > Math.ceil(elapsedSeconds) + 1)
      throw new Error(`the caller check is not cached: ${meCalls} GET /api/me for one token in ${elapsedSeconds.toFixed(1)} s`);

    const [sdk, bare] = targets.map((measured) => ({
      cpuMicrosPerCall: median(measured.cpuPerCall),
      requestsPerSecond: median(measured.rounds.map((r) => r.requestsPerSecond)),
      p50Ms: median(measured.rounds.map((r) => r.p50Ms)),
      p99Ms: median(measured.rounds.map((r) => r.p99Ms)),
    })) as [Figures, Figures];
    const setup = `${workers} concurrent calls on one channel, median of ${rounds} interleaved ${secondsPerRound}-s rounds, servers in their own process`;
    // Client and servers share this machine's CPUs: other load squeezes both targets toward the same speed.
    const load = `1-min load average ${(loadavg()[0] ?? 0).toFixed(1)} on ${availableParallelism()} CPUs`;
    printComparison(
      'CallTool, no-op tool, cached caller (requests/s)',
      { name: 'SDK ToolService', value: sdk.requestsPerSecond, unit: 'req/s' },
      { name: 'bare grpc-js handler', value: bare.requestsPerSecond, unit: 'req/s' },
    );
    const ratio = sdk.requestsPerSecond / bare.requestsPerSecond;
    printTarget({ name: 'CallTool requests/s', figure: ratio, unit: 'x', of: 'a bare grpc-js handler', atLeast: targetRatio });
    console.log(`  (${setup}; ${load})`);
    printLatencies(
      'CallTool latency at that load (median of the rounds)',
      { name: 'SDK ToolService', p50Ms: sdk.p50Ms, p99Ms: sdk.p99Ms },
      { name: 'bare grpc-js handler', p50Ms: bare.p50Ms, p99Ms: bare.p99Ms },
    );
    printComparison(
      'Server CPU time per CallTool (user + system of the servers process, median of the rounds)',
      { name: 'SDK ToolService', value: sdk.cpuMicrosPerCall, unit: 'µs/call' },
      { name: 'bare grpc-js handler', value: bare.cpuMicrosPerCall, unit: 'µs/call' },
    );
    console.log(
      `\nGET /api/me for the bench token during the run: ${meCalls} in ${elapsedSeconds.toFixed(1)} s (the caller check is cached; its answer refreshed in the background, at most once a second)`,
    );
  } finally {
    for (const client of clients) client.close();
    child.kill();
    await exited;
    await platform.close();
  }
}

const serveFor = process.argv.find((arg) => arg.startsWith('--serve='))?.slice('--serve='.length);
if (serveFor !== undefined) {
  await serve(serveFor);
} else {
  await measure();
}
