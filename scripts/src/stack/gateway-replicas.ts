// start:pg's gateways: replicas sharing their tool registry in PostgreSQL, behind HAProxy.
import { resolve } from 'node:path';
import { localOrigin } from '@platform/tool-sdk/internal';
import { haproxyConfig } from './haproxy-config.ts';
import { splitHostPort, type Placement, type StackAddresses } from './placement.ts';
import type { StackProcess } from './process-types.ts';

/**
 * start:pg's gateways: two replicas sharing their registrations in PostgreSQL (the DATABASE_URL
 * start:pg passes every process), each on its own ports, then HAProxy on MCP_PORT and
 * REGISTRY_ADDRESS in front of them, its configuration written into the data folder.
 */
export function gatewayReplicas(
  s: Placement,
  at: StackAddresses,
  gatewayEnv: Readonly<Record<string, string>>,
  dataDir: string,
  /** The gateway's main module. */
  mcpEntry: string,
): StackProcess[] {
  const registry = splitHostPort(at.registryAddress);
  const plan = {
    mcp: { host: s.MCP_HOST, port: s.MCP_PORT },
    registry,
    replicas: [0, 2].map((offset) => ({
      http: { host: s.MCP_HOST, port: s.MCP_REPLICA_PORT + offset },
      registry: { host: registry.host, port: s.MCP_REPLICA_PORT + offset + 1 },
    })),
  };
  const replicas = plan.replicas.map(({ http, registry: own }, index): StackProcess => {
    const origin = localOrigin(http.host, http.port);
    const which = index === 0 ? 'MCP_REPLICA_PORT' : 'MCP_REPLICA_PORT (the second gateway takes that port + 2)';
    const registryAddress = `${own.host.includes(':') ? `[${own.host}]` : own.host}:${own.port}`;
    return {
      name: `mcp-server-${index + 1}`,
      entry: mcpEntry,
      env: { ...gatewayEnv, MCP_PORT: String(http.port), REGISTRY_ADDRESS: registryAddress },
      listens: [
        { host: http.host, port: http.port, variable: which },
        { host: own.host, port: own.port, variable: `${which.split(' ')[0] ?? which} + ${index * 2 + 1} (its tool registry)` },
      ],
      ready: { kind: 'http', url: `${origin}/health` },
      serves: `${origin}/mcp (MCP gateway replica; tool registry on gRPC ${registryAddress})`,
    };
  });
  const configPath = resolve(dataDir, 'haproxy.cfg');
  const balancer: StackProcess = {
    name: 'haproxy',
    // -db: in the foreground, stopped with the stack; -f: the configuration generated from the ports.
    entry: { command: 'haproxy', args: ['-db', '-f', configPath] },
    writes: { path: configPath, text: haproxyConfig(plan) },
    env: {},
    listens: [
      { host: s.MCP_HOST, port: s.MCP_PORT, variable: 'MCP_PORT' },
      { host: registry.host, port: registry.port, variable: 'REGISTRY_ADDRESS' },
    ],
    ready: { kind: 'http', url: `${new URL(at.mcpUrl).origin}/health` },
    serves: `${at.mcpUrl} (HAProxy: MCP to both gateways, sessions kept on theirs; tool registry on gRPC ${at.registryAddress})`,
  };
  return [...replicas, balancer];
}
