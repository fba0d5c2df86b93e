// What the demo says once every step was seen: what to try next against the same stack, with its
// addresses filled in and tokens fetched by command (never printed): the Inspector, the REST API
// with curl, the attempt log, and where the README goes on.
import type { StackAddresses } from '../stack/processes.ts';

/** The lines, ready to print. `person` is who the commands sign in as. */
export function demoNextSteps(at: StackAddresses, person: string): string[] {
  const api = at.webhookApiUrls[0] ?? '';
  const restToken = `$(npm run -s token -- ${person} --api)`;
  const restHeaders = `-H "Authorization: Bearer ${restToken}" -H "AuthVersion: V0.0.1"`;
  return [
    'What to try next:',
    `  the tools in the MCP Inspector, as ${person} (a browser UI: npx @modelcontextprotocol/inspector, Streamable HTTP to ${at.mcpUrl}), or on the command line:`,
    `    npx @modelcontextprotocol/inspector --cli ${at.mcpUrl} --transport http --method tools/list --header "Authorization: Bearer $(npm run -s token -- ${person})"`,
    `  the REST API with curl, as ${person} (a token for the API, not the gateway: --api):`,
    `    curl ${restHeaders} "${api}/v2/webhooks?companyId=1"`,
    '  the attempt log of a webhook, every delivery with its outcome and answer:',
    `    curl ${restHeaders} "${api}/v2/webhooks/<webhook id>/deliveries"`,
    `  the whole API: ${api}/v2/openapi.json`,
    '  README.md\'s "Where next": docs/mcp-clients.md (mcp-remote, an agent desktop), docs/webhooks.md, docs/tool-sdk.md (a tool service of your own)',
  ];
}
