// The gateway and a tool service over mutual TLS, as npm start runs them: the service registers at
// the registry with its client certificate, the gateway dials it back over TLS, and a tool call
// made through MCP reaches it with the delegated token; a service whose certificate the gateway
// does not trust never gets to register, and a tool service the gateway cannot trust is never sent a token.
import * as grpc from '@grpc/grpc-js';
import { createTestPki, type CertificateFiles, type TestPki } from '@platform/devtools/test-certificates';
import { createGrpcTls, startToolServer } from '@platform/tool-sdk/internal';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toolResult } from '../src/tool-results/index.ts';
import { createToolServicePool } from '../src/tool-services/index.ts';
import { startProbeService, startStack, textOf, until, type Stack } from './harness.ts';

let pki: TestPki;
let stack: Stack;

const tlsEnv = (own: CertificateFiles, caFile = pki.caFile) => ({
  GRPC_TLS_CA_FILE: caFile,
  GRPC_TLS_CERT_FILE: own.certFile,
  GRPC_TLS_KEY_FILE: own.keyFile,
  GRPC_TLS_REQUIRE_CLIENT_CERT: 'true',
});

beforeAll(async () => {
  pki = await createTestPki();
  stack = await startStack({ toolService: false, gatewayEnv: tlsEnv(pki.server) });
}, 60_000);
afterAll(async () => {
  await stack.close();
});

describe('the gateway and a tool service over mutual TLS', () => {
  it('registers the service with its client certificate and runs a tool called through MCP, with the delegated token', async () => {
    expect(stack.logs.join('\n')).toContain('the tool registry is listening (mutual TLS)');
    const probe = await startProbeService(stack, { serviceName: 'tls-probe', env: tlsEnv(pki.client) });
    try {
      await until(() => stack.gateway.registry.catalog().byName(probe.exposed('echo')) !== undefined, 'the probe registered over mutual TLS', 20_000);
      const client = await stack.connect('oscar', 'modern');
      const result = await client.callTool({ name: probe.exposed('echo'), arguments: { text: 'over TLS' } });
      expect(result.isError).toBeFalsy();
      expect(textOf(result)).toContain('over TLS');
      expect(probe.calls).toHaveLength(1);
      expect(probe.calls[0]?.token).toMatch(/^ey/);
    } finally {
      await probe.close();
    }
  });

  it('refuses a service whose certificate another CA issued at the handshake: it never registers, and both sides say why', async () => {
    const probe = await startProbeService(stack, { serviceName: 'foreign-probe', env: tlsEnv(pki.foreign) });
    try {
      await until(() => stack.logs.some((line) => line.includes('refused a tool service at the TLS handshake')), 'the registry refused the handshake', 20_000);
      const refusal = stack.logs.find((line) => line.includes('refused a tool service at the TLS handshake')) ?? '';
      const { peer, reason } = JSON.parse(refusal) as { peer?: string; reason?: string };
      expect(peer).toMatch(/^127\.0\.0\.1:\d+$/);
      expect(reason).toMatch(/does not chain to GRPC_TLS_CA_FILE/);
      await until(() => probe.logs.some((line) => line.includes('cannot register at the gateway')), 'the service said it cannot register', 20_000);
      const said = JSON.parse(probe.logs.find((line) => line.includes('cannot register at the gateway')) ?? '{}') as { reason?: string };
      expect(said.reason).toMatch(/UNAVAILABLE: the gateway at \S+ closed the connection during the TLS handshake: .*GRPC_TLS_CERT_FILE/);
      expect(stack.gateway.registry.services().map((service) => service.serviceName)).not.toContain('foreign-probe');
      // Nothing of the service's reached the registry: no Register call was logged for it.
      expect(stack.logs.join('\n')).not.toContain('foreign-probe');
    } finally {
      await probe.close();
    }
  });
});

describe("the gateway's tool-service pool over TLS", () => {
  it('does not call a tool service whose certificate is not for its address, and the MCP result says why in words', async () => {
    const received: (readonly string[])[] = [];
    const server = await startToolServer(
      {
        listing: [],
        setTools: () => undefined,
        call: (call) => (received.push(call.authorization), Promise.resolve({ result: { content: [], structuredContentJson: '{}', isError: false } })),
      },
      '127.0.0.1:0',
      {},
      { tls: createGrpcTls({ caFile: pki.caFile, ...pki.wrongHost, requireClientCert: false, reloadMs: 60_000 }) },
    );
    const pool = createToolServicePool({
      channelCredentials: createGrpcTls({ caFile: pki.caFile, ...pki.server, requireClientCert: false, reloadMs: 60_000 }).channelCredentials,
    });
    try {
      const answer = await pool.callTool(server.address, { name: 'echo', argumentsJson: '{}', requestId: '1' }, 'a-delegated-token', { deadlineMs: 10_000 });
      expect(answer).toMatchObject({ ok: false, code: grpc.status.UNAVAILABLE, tlsRefusal: "the peer's certificate is not for the host dialled" });
      if (answer.ok) throw new Error('the call went through');
      const shown = toolResult(answer, {
        exposedName: 'echo',
        name: 'echo',
        title: 'Echo',
        description: 'Echoes.',
        inputSchema: { type: 'object' },
        outputSchema: undefined,
        requiresPermission: undefined,
        annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true },
        service: {
          registrationId: 'r-1',
          serviceName: 'probe',
          appClientId: 'fleet-insights',
          appKey: 'fleet-insights',
          callbackAddress: server.address,
          since: 0,
          actorToken: () => 'actor',
        },
      });
      expect(shown.isError).toBe(true);
      expect(JSON.stringify(shown._meta)).toContain('"code":"TOOL_SERVICE_UNTRUSTED"');
      expect(textOf(shown)).toMatch(/was not called: the gateway could not set up a trusted connection .*not for the host dialled\. Nothing was sent to it/);
      expect(received).toEqual([]);
    } finally {
      pool.close();
      await server.close(0);
    }
  });
});
