// The servers process's CPU time per request under autocannon load: on a shared machine the figure
// that moves least with the machine's other load, which slows the servers and autocannon alike.
import autocannon from 'autocannon';
import { processTreeCpuMicros } from '@platform/devtools/process-cpu';

/** CPU microseconds per answered request of the process `pid` (its threads included), median of interleaved rounds per target. */
export async function cpuMicrosPerRequest<Name extends string>(
  pid: number,
  targets: Record<Name, autocannon.Options>,
  load: { connections: number; secondsPerRound: number; rounds: number },
): Promise<Record<Name, number>> {
  const names = Object.keys(targets) as Name[];
  const samples = new Map<Name, number[]>(names.map((name) => [name, []]));
  const cpu = () => {
    const micros = processTreeCpuMicros(pid);
    if (micros === undefined) throw new Error(`no CPU time for process ${pid}`);
    return micros;
  };
  for (let round = 0; round < load.rounds; round++) {
    for (const name of names) {
      const before = cpu();
      const result = await autocannon({ ...targets[name], connections: load.connections, duration: load.secondsPerRound });
      const used = cpu() - before;
      if (result.non2xx + result.errors + result.timeouts > 0 || result.requests.total === 0) throw new Error(`${name}: failed requests`);
      samples.get(name)?.push(used / result.requests.total);
    }
  }
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;
  return Object.fromEntries(names.map((name) => [name, median(samples.get(name) ?? [])])) as Record<Name, number>;
}
