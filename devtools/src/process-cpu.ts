// CPU time of another process and its children, read from /proc (Linux): what a bench adds to its
// own process.cpuUsage() to say where a machine's CPUs went, e.g. to a PostgreSQL server's backends.
import { readdirSync, readFileSync } from 'node:fs';

/** utime + stime of a /proc/<pid>/stat line, in clock ticks (USER_HZ, 100 on Linux). */
function ticksOf(stat: string): { parent: number; ticks: number } {
  // The command name may hold spaces and parentheses: the fields start after its last ')'.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { parent: Number(fields[1]), ticks: Number(fields[11]) + Number(fields[12]) };
}

/**
 * CPU microseconds used so far by `pid` and its live children (one level: a server's workers), or
 * undefined where /proc cannot tell (not Linux, or the process is gone). Children that have exited
 * are in their parent's figure only once it waited for them.
 */
export function processTreeCpuMicros(pid: number): number | undefined {
  let ticks = 0;
  let found = false;
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return undefined;
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = ticksOf(readFileSync(`/proc/${entry}/stat`, 'utf8'));
      if (Number(entry) === pid) found = true;
      else if (stat.parent !== pid) continue;
      // Each child's own time, and what its exited children added (cutime, cstime) is left out.
      ticks += stat.ticks;
    } catch {
      // Gone between the listing and the read.
    }
  }
  return found ? ticks * 10_000 : undefined;
}
