// /metrics stays bounded as tools come and go: after a tool service registers twenty tools, each is
// called and the service deregisters, the gateway's series count is back where it was, cycle after cycle.
import { describe, expect, it } from 'vitest';
import { stackForTests, startProbeService, until } from './harness.ts';

const stack = stackForTests();

/** The gateway's own series (Node's and the process's default metrics come and go on their own). */
async function seriesCount(): Promise<number> {
  const text = await stack().gateway.metrics.registry.metrics();
  return text.split('\n').filter((line) => line !== '' && !line.startsWith('#') && !/^platform_gateway_(nodejs|process)_/.test(line)).length;
}

describe("the gateway's metrics", () => {
  it('drop the series of tools and services that are gone: the count after each of three register/deregister cycles is the count before', async () => {
    const client = await stack().connect('oscar', 'modern');
    // Every series a cycle's calls touch besides the tools' own exists before the count is taken.
    await client.listTools();
    await client.callTool({ name: 'whoami', arguments: {} });
    const before = await seriesCount();
    const tools = Array.from({ length: 20 }, (_, index) => `tool_${index}`);

    const counts: number[] = [];
    for (let cycle = 0; cycle < 3; cycle += 1) {
      const probe = await startProbeService(stack(), { serviceName: `cycle-${cycle}`, tools });
      await until(() => tools.every((tool) => stack().gateway.registry.catalog().byName(probe.exposed(tool)) !== undefined), 'the probe registered');
      for (const tool of tools) expect((await client.callTool({ name: probe.exposed(tool), arguments: { text: 'x' } })).isError).toBeFalsy();
      expect(await seriesCount()).toBeGreaterThan(before + 20);
      await probe.close();
      await until(() => stack().gateway.registry.catalog().byName(probe.exposed('tool_0')) === undefined, 'the probe deregistered');
      counts.push(await seriesCount());
    }

    expect(counts).toEqual([before, before, before]);
  });
});
