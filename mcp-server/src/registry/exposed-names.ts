// The names MCP clients see for the tools of every live service, unique and decided by the set of
// tools alone (never by the order services registered in). A tool keeps its own name while no other
// tool has it; tools that share a name become `<service>__<name>`; if that still collides (one
// service name under two apps) `<appClientId>__<service>__<name>`; past that, or when a name would
// not be a valid MCP name (too long, a character MCP names lack), a short hash of where the tool
// comes from is appended.
import { hash } from 'node:crypto';

export interface ToolOrigin {
  readonly appClientId: string;
  readonly serviceName: string;
  readonly name: string;
}

/** MCP names are [A-Za-z0-9_.-]{1,128}; the gateway's own never carry a dot. */
const maxNameLength = 128;
const validName = /^[A-Za-z0-9_-]{1,128}$/;
const lastLevel = 3;

function candidate(origin: ToolOrigin, level: number): string {
  const parts = level === 0 ? [origin.name] : level === 1 ? [origin.serviceName, origin.name] : [origin.appClientId, origin.serviceName, origin.name];
  const joined = parts.join('__');
  if (level < lastLevel && validName.test(joined)) return joined;
  const digest = hash('sha256', JSON.stringify([origin.appClientId, origin.serviceName, origin.name]), 'hex').slice(0, 12);
  return `${joined.replace(/[^A-Za-z0-9_-]/g, '-').slice(0, maxNameLength - digest.length - 1)}_${digest}`;
}

/** The exposed name of each tool, in the order given. */
export function exposedNames(origins: readonly ToolOrigin[]): string[] {
  const levels = origins.map(() => 0);
  const names = origins.map((origin) => candidate(origin, 0));
  // Every tool in a group sharing a name moves one level up, together, until no group is left:
  // the outcome depends only on the set of tools.
  for (;;) {
    const holders = new Map<string, number[]>();
    names.forEach((name, index) => {
      const group = holders.get(name);
      if (group) group.push(index);
      else holders.set(name, [index]);
    });
    let moved = false;
    for (const group of holders.values()) {
      if (group.length < 2) continue;
      for (const index of group) {
        const level = levels[index] ?? lastLevel;
        const origin = origins[index];
        if (level >= lastLevel || !origin) continue;
        levels[index] = level + 1;
        names[index] = candidate(origin, level + 1);
        moved = true;
      }
    }
    if (!moved) return names;
  }
}
