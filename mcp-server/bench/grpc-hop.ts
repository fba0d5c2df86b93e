// The gRPC hop measured alone, in the gateway bench's servers process: the leg (CallToolStream of
// the tool service on the SDK, calls in flight, its CPU per call) and the floor (sequential
// CallToolStream of a grpc-js server that answers at once, no SDK), which is also the minimal
// proxy's upstream: the contract every tool service on the SDK serves.
import * as grpc from '@grpc/grpc-js';
import { loadToolsProto, type CallToolEvent, type ToolResult } from '@platform/proto';
import { bindOnLoopback } from '@platform/devtools/grpc-loopback';

export interface GrpcFloorFigures {
  readonly p50Micros: number;
}

export interface GrpcLegFigures {
  readonly callsPerSecond: number;
  /** CPU time of this process per call: the gRPC client's and the tool service's together. */
  readonly cpuMicrosPerCall: number;
}

/** A grpc-js ToolService on a free loopback port whose CallToolStream answers `result` at once. */
export async function startFloorServer(result: ToolResult): Promise<{ readonly address: string; close(): void }> {
  const server = new grpc.Server();
  server.addService(loadToolsProto().ToolService.service, {
    ListTools: (_call: unknown, callback: grpc.sendUnaryData<{ tools: [] }>) => {
      callback(null, { tools: [] });
    },
    CallToolStream: (call: grpc.ServerWritableStream<unknown, CallToolEvent>) => {
      call.write({ result });
      call.end();
    },
  });
  const address = await bindOnLoopback(server, grpc.ServerCredentials.createInsecure());
  return {
    address,
    close: () => {
      server.forceShutdown();
    },
  };
}

/** `call` with `inFlight` calls at a time for `seconds`: calls/s and this process's CPU time per call. */
export async function measureGrpcLeg(
  call: () => Promise<void>,
  { inFlight, seconds }: { readonly inFlight: number; readonly seconds: number },
): Promise<GrpcLegFigures> {
  await call(); // fills the tool service's caller check for this token
  const { user, system } = process.cpuUsage();
  const started = performance.now();
  const end = started + seconds * 1000;
  let calls = 0;
  const worker = async () => {
    while (performance.now() < end) {
      await call();
      calls += 1;
    }
  };
  await Promise.all(Array.from({ length: inFlight }, worker));
  const used = process.cpuUsage({ user, system });
  return { callsPerSecond: calls / ((performance.now() - started) / 1000), cpuMicrosPerCall: (used.user + used.system) / calls };
}

/** The p50 of sequential `call`s over `seconds`, after as long warming. */
export async function measureGrpcFloor(call: () => Promise<void>, seconds: number): Promise<GrpcFloorFigures> {
  // Warm for as long as it measures: a few hundred calls leave grpc-js's code still tiering up.
  const warm = performance.now() + seconds * 1000;
  while (performance.now() < warm) await call();
  const latencies: number[] = [];
  const end = performance.now() + seconds * 1000;
  while (performance.now() < end) {
    const before = performance.now();
    await call();
    latencies.push(performance.now() - before);
  }
  const sorted = Float64Array.from(latencies).sort();
  return { p50Micros: (sorted[Math.floor(sorted.length / 2)] ?? Number.NaN) * 1000 };
}
