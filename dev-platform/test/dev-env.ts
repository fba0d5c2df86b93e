// The environment the default seed needs: its client secrets and API tokens are env references.
export const devSecrets = {
  WEBHOOK_TOOLS_CLIENT_SECRET: 'test-webhook-tools-secret',
  FLEET_INSIGHTS_CLIENT_SECRET: 'test-fleet-insights-secret',
  LEGACY_SYNC_CLIENT_SECRET: 'test-legacy-sync-secret',
  MCP_GATEWAY_CLIENT_SECRET: 'test-mcp-gateway-secret',
  DEV_API_TOKEN_OSCAR: 'test-oscar-api-token',
} as const;
