// When no delegated token can be had, the tool service is not called and the agent is told why;
// the caller's own token is never a fallback. Here the platform has token exchange switched off.
import { describe, expect, it } from 'vitest';
import { errorMetaKey } from '../src/tool-results/index.ts';
import { eras, probeForTests, stackForTests, textOf } from './harness.ts';

const stack = stackForTests({ platformEnv: { PLATFORM_TOKEN_EXCHANGE: 'false' } });
const probe = probeForTests(stack);

describe.each(eras)('on the %s revision, with token exchange switched off', (era) => {
  it('still lists the tools, by the person’s own permissions, so the agent can learn what is wrong', async () => {
    const client = await stack().connect('oscar', era);
    const names = (await client.listTools()).tools.map((tool) => tool.name);
    expect(names).toEqual(expect.arrayContaining([probe().exposed('echo'), 'create_webhook', 'whoami']));
  });

  it('does not call the tool service and tells the agent no delegated token could be obtained', async () => {
    const client = await stack().connect('oscar', era);
    for (const name of [probe().exposed('echo'), 'whoami']) {
      const result = await client.callTool({ name, arguments: {} });
      expect(result.isError).toBe(true);
      expect(textOf(result)).toMatch(/No delegated token could be obtained, so the tool \S+ was not called/);
      expect(textOf(result)).toMatch(/token exchange is not enabled/);
      expect(result._meta?.[errorMetaKey]).toEqual({ code: 'NO_DELEGATED_TOKEN', reason: 'EXCHANGE_DISABLED' });
    }
    expect(probe().calls).toEqual([]);
    const toolServiceLogs = [...probe().logs, ...(stack().tools?.logs ?? [])].join('');
    expect(toolServiceLogs).not.toMatch(/"toolName":"(echo|whoami)"/);
  });
});
