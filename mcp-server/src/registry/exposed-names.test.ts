import { describe, expect, it } from 'vitest';
import { exposedNames, type ToolOrigin } from './exposed-names.ts';

const tool = (appClientId: string, serviceName: string, name: string): ToolOrigin => ({ appClientId, serviceName, name });
const mcpName = /^[A-Za-z0-9_-]{1,128}$/;

describe('exposedNames', () => {
  it('keeps a tool’s own name while no other tool has it', () => {
    expect(exposedNames([tool('webhook-tools', 'webhooks', 'list_webhooks'), tool('fleet-insights', 'fleet', 'count_devices')])).toEqual([
      'list_webhooks',
      'count_devices',
    ]);
  });

  it('prefixes every tool of a shared name with its service, and only those', () => {
    const names = exposedNames([
      tool('webhook-tools', 'webhooks', 'search'),
      tool('webhook-tools', 'fleet', 'search'),
      tool('webhook-tools', 'fleet', 'count'),
    ]);

    expect(names).toEqual(['webhooks__search', 'fleet__search', 'count']);
  });

  it('prefixes with the app as well when one service name is used by two apps', () => {
    const names = exposedNames([tool('webhook-tools', 'reports', 'search'), tool('fleet-insights', 'reports', 'search')]);

    expect(names).toEqual(['webhook-tools__reports__search', 'fleet-insights__reports__search']);
  });

  it('gives the same names whatever order the tools come in', () => {
    const tools = [
      tool('webhook-tools', 'reports', 'search'),
      tool('fleet-insights', 'reports', 'search'),
      tool('webhook-tools', 'fleet', 'search'),
      tool('webhook-tools', 'fleet', 'count'),
      tool('fleet-insights', 'other', 'fleet__count'),
    ];
    const expected = new Map(tools.map((origin, index) => [origin, exposedNames(tools)[index]]));

    for (const order of [[...tools].reverse(), [tools[2], tools[4], tools[0], tools[3], tools[1]]]) {
      const names = exposedNames(order as ToolOrigin[]);
      (order as ToolOrigin[]).forEach((origin, index) => {
        expect(names[index]).toBe(expected.get(origin));
      });
    }
  });

  it('moves a tool whose own name is another tool’s prefixed name, so no two names are equal', () => {
    const names = exposedNames([tool('a', 'fleet', 'count'), tool('a', 'other', 'count'), tool('a', 'third', 'fleet__count')]);

    expect(new Set(names).size).toBe(3);
    // Both holders of fleet__count move on: the service's tool to its app's prefix, the other to its service's.
    expect(names).toEqual(['a__fleet__count', 'other__count', 'third__fleet__count']);
  });

  it('hashes a name that would be too long or hold a character MCP names lack, keeping it unique and valid', () => {
    const long = 'x'.repeat(120);
    const names = exposedNames([
      tool('app', 'service-one', long),
      tool('app', 'service-two', long),
      tool('urn:client/one', 'same', 'search'),
      tool('urn-client-one', 'same', 'search'),
    ]);

    for (const name of names) expect(name).toMatch(mcpName);
    expect(new Set(names).size).toBe(4);
    expect(names[0]).toMatch(/^service-one__x+_[0-9a-f]{12}$/);
  });
});
