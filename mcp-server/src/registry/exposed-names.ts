// The names MCP clients see for the tools of every live service. A name belongs to one app for
// good: it is derived from the app that offers the tool and nothing that can change behind it, so
// no sequence of registrations, expiries or restarts can hand it to another app. Only the app the
// operator pins (REGISTRY_PLAIN_NAMES_APP) keeps its tools' own names; every other app's are
// `<appKey>__<name>`. Two tools of one app that share a name become `<appKey>__<service>__<name>`;
// a name past 64 characters keeps its `<appKey>__` and ends in a short hash of where it comes from.
// The outcome depends on the set of tools alone, never on the order they registered in.
import { hash } from 'node:crypto';

export interface ToolOrigin {
  /** The app's key: the prefix of its tools' names, as of its permissions. */
  readonly appKey: string;
  readonly appClientId: string;
  readonly serviceName: string;
  readonly name: string;
}

/** What many model APIs accept of a tool name; MCP itself allows 128 characters and dots. */
export const maxExposedNameLength = 64;
/**
 * An app key that can prefix names: no `_`, so the first `_` of a prefixed name ends the app key
 * and two apps' names never meet; short, so that the name keeps room for the tool's.
 */
export const prefixableAppKey = /^[a-z0-9][a-z0-9-]{0,31}$/;

const separator = '__';
const digestLength = 12;
const validName = new RegExp(`^[A-Za-z0-9_-]{1,${maxExposedNameLength}}$`);
const lastLevel = 2;

function candidate(origin: ToolOrigin, level: number, plainNamesApp: string | undefined): string {
  const prefix = `${origin.appKey}${separator}`;
  const joined =
    level === 0 ? (origin.appKey === plainNamesApp ? origin.name : `${prefix}${origin.name}`) : `${prefix}${origin.serviceName}${separator}${origin.name}`;
  if (level < lastLevel && validName.test(joined)) return joined;
  // The app's prefix stays whole; what follows it is cut, and the hash keeps it unique within the app.
  const digest = hash('sha256', JSON.stringify([origin.appClientId, origin.serviceName, origin.name]), 'hex').slice(0, digestLength);
  const rest = `${origin.serviceName}${separator}${origin.name}`.replace(/[^A-Za-z0-9_-]/g, '-');
  return `${prefix}${rest.slice(0, maxExposedNameLength - prefix.length - digestLength - 1)}_${digest}`;
}

/** The exposed name of each tool, in the order given; every origin's appKey must match prefixableAppKey. */
export function exposedNames(origins: readonly ToolOrigin[], plainNamesApp?: string): string[] {
  const levels = origins.map(() => 0);
  const names = origins.map((origin) => candidate(origin, 0, plainNamesApp));
  // Every tool in a group sharing a name moves one level up, together, until no group is left: the
  // outcome depends only on the set of tools. Only tools of one app can ever share a name.
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
        names[index] = candidate(origin, level + 1, plainNamesApp);
        moved = true;
      }
    }
    if (!moved) return names;
  }
}
