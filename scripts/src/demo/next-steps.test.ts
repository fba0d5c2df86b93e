import { describe, expect, it } from 'vitest';
import { demoNextSteps } from './next-steps.ts';
import { stackAddresses } from '../stack/processes.ts';

describe('what the demo says to try next', () => {
  it("names the Inspector, the REST API with curl, the attempt log and the README, at this stack's addresses, tokens fetched by command", () => {
    const lines = demoNextSteps(stackAddresses({ PLATFORM_PORT: '4400', MCP_PORT: '3300', WEBHOOK_API_PORT: '4500' }, 'embedded'), 'oscar');
    const text = lines.join('\n');
    expect(lines[0]).toBe('What to try next:');
    for (const expected of [
      'npx @modelcontextprotocol/inspector --cli http://127.0.0.1:3300/mcp --transport http --method tools/list --header "Authorization: Bearer $(npm run -s token -- oscar)"',
      'curl -H "Authorization: Bearer $(npm run -s token -- oscar --api)" -H "AuthVersion: V0.0.1" "http://127.0.0.1:4500/v2/webhooks?companyId=1"',
      '"http://127.0.0.1:4500/v2/webhooks/<webhook id>/deliveries"',
      'http://127.0.0.1:4500/v2/openapi.json',
      'README.md\'s "Where next": docs/mcp-clients.md',
    ]) {
      expect(text).toContain(expected);
    }
    expect(text).not.toMatch(/:(4000|3000|4100)\b/);
  });
});
