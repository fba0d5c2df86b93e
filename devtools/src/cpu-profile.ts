// A sampling CPU profile of the process it runs in, for the benchmarks that print where a missed
// target's time goes: self time summed by place (the package a function comes from, this
// repository's file, Node's internals, the VM's own entries such as the garbage collector and idle)
// and by function.
import { Session } from 'node:inspector/promises';
import { resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const repositoryRoot = resolve(import.meta.dirname, '../..') + sep;

export interface CpuProfile {
  /** All the time sampled, idle included, in µs. */
  readonly totalMicros: number;
  /** Self time in µs by place: `@grpc/grpc-js`, `mcp-server/src/http/mcp-endpoint.ts`, `node: internals`, `(garbage collector)`, `(idle)`. */
  readonly byPlace: Readonly<Record<string, number>>;
  /** Self time in µs by function, named with its file and line. */
  readonly byFunction: Readonly<Record<string, number>>;
}

/** Where a function lives: a package under node_modules, a file of this repository, Node's own code, or the VM. */
export function placeOf(url: string, functionName: string): string {
  if (url === '') return functionName.startsWith('(') ? functionName : '(native)';
  const inPackage = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url);
  if (inPackage?.[1] !== undefined) return inPackage[1];
  if (url.startsWith('node:')) return 'node: internals';
  const path = url.startsWith('file:') ? fileURLToPath(url) : url;
  return path.startsWith(repositoryRoot) ? path.slice(repositoryRoot.length).split(sep).join('/') : path;
}

/** Starts profiling this process, sampling every `intervalMicros`; the function it returns stops it and sums the samples. */
export async function startCpuProfile(intervalMicros = 200): Promise<() => Promise<CpuProfile>> {
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: intervalMicros });
  await session.post('Profiler.start');
  return async () => {
    const { profile } = await session.post('Profiler.stop');
    session.disconnect();
    const frames = new Map(profile.nodes.map((node) => [node.id, node.callFrame]));
    const byPlace: Record<string, number> = {};
    const byFunction: Record<string, number> = {};
    let totalMicros = 0;
    const deltas = profile.timeDeltas ?? [];
    for (const [index, id] of (profile.samples ?? []).entries()) {
      const frame = frames.get(id);
      if (!frame) continue;
      const micros = deltas[index + 1] ?? 0;
      const place = placeOf(frame.url, frame.functionName);
      const file = frame.url.split('/').at(-1) ?? '';
      const name = `${frame.functionName || '(anonymous)'}${file ? ` ${file}:${frame.lineNumber + 1}` : ''}`;
      byPlace[place] = (byPlace[place] ?? 0) + micros;
      byFunction[name] = (byFunction[name] ?? 0) + micros;
      totalMicros += micros;
    }
    return { totalMicros, byPlace, byFunction };
  };
}
