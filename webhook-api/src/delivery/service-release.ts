// The webhook service's release, one number for everyone who sees it: the User-Agent of its
// deliveries names it to receivers, and the OpenAPI document states it as info.version to API
// clients. Not package.json's version: the workspaces link one another at 0.0.0 (`^0.0.0` in
// mcp-server, tool-service and scripts), which no release number satisfies.
export const webhookServiceRelease = '2.0.0';
