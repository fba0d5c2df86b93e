import { describe, expect, it } from 'vitest';
import { exposedNames, maxExposedNameLength, type ToolOrigin } from './exposed-names.ts';

const tool = (appKey: string, serviceName: string, name: string, since = 0): ToolOrigin => ({ appKey, appClientId: appKey, serviceName, name, since });
const exposable = /^[A-Za-z0-9_-]{1,64}$/;
const pinned = 'webhook-tools';

describe('exposedNames', () => {
  it('keeps the own names of the pinned app’s tools, and prefixes every other app’s with its key, collision or not', () => {
    expect(exposedNames([tool('webhook-tools', 'webhooks', 'list_webhooks'), tool('fleet-insights', 'fleet', 'count_devices')], pinned)).toEqual([
      'list_webhooks',
      'fleet-insights__count_devices',
    ]);
  });

  it('prefixes every app when the operator pins none', () => {
    expect(exposedNames([tool('webhook-tools', 'webhooks', 'whoami')])).toEqual(['webhook-tools__whoami']);
  });

  it('gives a rival app offering the pinned app’s tools under its service name its own names, and leaves the real ones alone', () => {
    const real = [tool('webhook-tools', 'webhook-tools', 'whoami'), tool('webhook-tools', 'webhook-tools', 'create_webhook')];
    const rival = [tool('fleet-insights', 'webhook-tools', 'whoami'), tool('fleet-insights', 'webhook-tools', 'create_webhook')];

    expect(exposedNames([...real, ...rival], pinned)).toEqual(['whoami', 'create_webhook', 'fleet-insights__whoami', 'fleet-insights__create_webhook']);
    expect(exposedNames(rival, pinned)).toEqual(['fleet-insights__whoami', 'fleet-insights__create_webhook']);
  });

  it('leaves a name two services of one app offer to the one registered first, and tells the later one’s apart by its service', () => {
    const names = exposedNames(
      [
        tool('webhook-tools', 'webhooks', 'search', 1_000),
        tool('webhook-tools', 'fleet', 'search', 2_000),
        tool('webhook-tools', 'fleet', 'count', 2_000),
        tool('reports', 'a', 'search', 1_500),
        tool('reports', 'b', 'search', 900),
      ],
      pinned,
    );

    expect(names).toEqual(['search', 'webhook-tools__fleet__search', 'count', 'reports__a__search', 'reports__search']);
  });

  it('keeps the real names with the real service when a later service of the same app offers them, whatever its service name', () => {
    const real = [tool('webhook-tools', 'webhook-tools', 'whoami', 1_000), tool('webhook-tools', 'webhook-tools', 'list_webhooks', 1_000)];
    const later = [tool('webhook-tools', 'a-copy', 'whoami', 5_000), tool('webhook-tools', 'a-copy', 'list_webhooks', 5_000)];

    expect(exposedNames([...later, ...real], pinned)).toEqual([
      'webhook-tools__a-copy__whoami',
      'webhook-tools__a-copy__list_webhooks',
      'whoami',
      'list_webhooks',
    ]);
    // Once the real service is gone, the name is the other's: it is still the same app's.
    expect(exposedNames(later, pinned)).toEqual(['whoami', 'list_webhooks']);
  });

  it('breaks a tie of one instant by service name, as every replica does', () => {
    expect(exposedNames([tool('fleet', 'b', 'count', 7), tool('fleet', 'a', 'count', 7)])).toEqual(['fleet__b__count', 'fleet__count']);
  });

  it('gives the same names whatever order the tools come in', () => {
    const tools = [
      tool('webhook-tools', 'reports', 'search'),
      tool('fleet-insights', 'reports', 'search'),
      tool('webhook-tools', 'fleet', 'search'),
      tool('webhook-tools', 'fleet', 'count'),
      tool('fleet-insights', 'other', 'count'),
    ];
    const expected = new Map(tools.map((origin, index) => [origin, exposedNames(tools, pinned)[index]]));

    for (const order of [[...tools].reverse(), [tools[2], tools[4], tools[0], tools[3], tools[1]]]) {
      const names = exposedNames(order as ToolOrigin[], pinned);
      (order as ToolOrigin[]).forEach((origin, index) => {
        expect(names[index]).toBe(expected.get(origin));
      });
    }
  });

  it('keeps a name within 64 characters, its app prefix whole, unique by a hash of its origin', () => {
    const long = 'x'.repeat(64);
    const names = exposedNames(
      [tool('fleet-insights', 'service-one', long), tool('fleet-insights', 'service-two', long), tool('webhook-tools', 's', long)],
      pinned,
    );

    for (const name of names) expect(name).toMatch(exposable);
    expect(new Set(names).size).toBe(3);
    expect(names[0]).toMatch(/^fleet-insights__service-one__x+_[0-9a-f]{12}$/);
    expect(names[2]).toBe(long);
  });

  it('never gives one name to two apps, over every set of tools that can be live together, and keeps each name within 64 characters', () => {
    // Every subset of these tools is a catalog some sequence of registrations, deregistrations,
    // expiries and restarts can leave live; names depend on nothing else, so if no name reaches two
    // apps across all of them, no sequence can move a name from one app to another.
    const long = 'y'.repeat(64);
    const pool = [
      tool('webhook-tools', 'webhook-tools', 'whoami'),
      tool('webhook-tools', 'other', 'whoami'),
      tool('webhook-tools', 'webhook-tools', long),
      tool('fleet-insights', 'webhook-tools', 'whoami'),
      tool('fleet-insights', 'fleet-insights', 'whoami'),
      tool('fleet-insights', 'webhook-tools', long),
      tool('fleet', 'insights-whoami', 'whoami'),
      tool('fleet', 'webhook-tools', 'insights_whoami'),
      tool('webhook', 'tools', 'whoami'),
      tool('a', 'b', '_c'),
      tool('a-b', 'c', 'd'),
    ];
    const owner = new Map<string, string>();
    for (let subset = 1; subset < 2 ** pool.length; subset += 1) {
      const live = pool.filter((_origin, index) => (subset >> index) & 1);
      // The pinned app is the operator's setting, the same across restarts.
      exposedNames(live, pinned).forEach((name, index) => {
        const app = live[index]?.appKey ?? '';
        expect(name.length).toBeLessThanOrEqual(maxExposedNameLength);
        expect(name).toMatch(exposable);
        expect(owner.get(name) ?? app, `${name} reached ${app} after ${owner.get(name) ?? ''}`).toBe(app);
        owner.set(name, app);
      });
    }
    expect(owner.size).toBeGreaterThanOrEqual(pool.length);
  });
});
