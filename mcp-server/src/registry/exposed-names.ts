// The names MCP clients see for the tools of every live service. A name belongs to one app for
// good: it is derived from the app that offers the tool and nothing that can change behind it, so
// no sequence of registrations, expiries or restarts can hand it to another app. Only the app the
// operator pins (REGISTRY_PLAIN_NAMES_APP) keeps its tools' own names; every other app's are
// `<appKey>__<name>`. Within one app a name stays put too: when two services of an app offer one
// name, the service that has held it longest (its `since`, by the store's time, kept across its own
// restarts) keeps it and the later one's becomes `<appKey>__<service>__<name>`, so a second service
// cannot take or blank the first one's names. A name past 64 characters keeps its `<appKey>__` and
// ends in a short hash of where it comes from. The outcome depends on the set of tools and their
// services' `since` alone, never on the order a replica read them in.
import { hash } from 'node:crypto';

export interface ToolOrigin {
  /** The app's key: the prefix of its tools' names, as of its permissions. */
  readonly appKey: string;
  readonly appClientId: string;
  readonly serviceName: string;
  readonly name: string;
  /** Since when its service has been registered without a gap (epoch ms, by the store's time): the earlier keeps a shared name. */
  readonly since: number;
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

/** The index in `group` whose service has held the name longest, when all are of one app; undefined otherwise. */
function senior(origins: readonly ToolOrigin[], group: readonly number[]): number | undefined {
  const [first] = group;
  const app = first === undefined ? undefined : origins[first]?.appClientId;
  if (group.some((index) => origins[index]?.appClientId !== app)) return undefined;
  let best: number | undefined;
  for (const index of group) {
    const origin = origins[index];
    const held = best === undefined ? undefined : origins[best];
    // Ties (one instant) go to the service name that sorts first: every replica decides alike.
    if (origin && (!held || origin.since < held.since || (origin.since === held.since && origin.serviceName < held.serviceName))) best = index;
  }
  return best;
}

/** The exposed name of each tool, in the order given; every origin's appKey must match prefixableAppKey. */
export function exposedNames(origins: readonly ToolOrigin[], plainNamesApp?: string): string[] {
  const levels = origins.map(() => 0);
  const names = origins.map((origin) => candidate(origin, 0, plainNamesApp));
  // In a group sharing a name, the tools of one app leave it to the one whose service came first and
  // the others move one level up; a group of several apps (which only odd names of the pinned app
  // can make) moves whole, so no app's name can go to another. Until no group is left.
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
      const staying = senior(origins, group);
      for (const index of group) {
        if (index === staying) continue;
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
